import MobiusJSON
import MobiusSystem

/// The epoll tokens of the I/O thread's descriptors; connections use their id (from `firstConnection` up).
enum Token {
    static let listener: UInt64 = 0
    static let outbound: UInt64 = 1
    static let signals: UInt64 = 2
    static let firstConnection: UInt64 = 16
}

/// The I/O thread: accepts clients on the control socket, reads request lines, hands events and requests to the
/// loop, and writes replies and stream items. It never blocks on a client: every socket is non-blocking, output
/// is buffered per connection up to a bound, and a full loop queue pauses reading (backpressure) rather than
/// dropping anything read.
final class ControlServer<Model, Event, Effect> {
    // The mutable properties belong to the I/O thread alone; exclusivity checks are off for the hot ones (see
    // ClientConnection).

    let loop: DaemonLoop<Model, Event, Effect>
    let settings: ServerSettings
    let log: DaemonLog
    let stats: DaemonStats
    private let epoll: Epoll
    private var listener: FileDescriptor?
    private let signals: SignalFD
    @exclusivity(unchecked) private var connections: [ConnectionID: ClientConnection] = [:]
    @exclusivity(unchecked) private var connectionsPerUser: [UInt32: Int] = [:]
    private var nextConnectionID = Token.firstConnection
    /// Connections with output to write after this round.
    @exclusivity(unchecked) var dirty: Set<ConnectionID> = []
    /// Connections waiting for room in the loop's queue.
    @exclusivity(unchecked) private var pausedForQueue: [ConnectionID] = []
    @exclusivity(unchecked) private var readBuffer = [UInt8](repeating: 0, count: 256 * 1024)
    /// Requests read this round, handed to the loop in one batch (one lock, one wake-up).
    @exclusivity(unchecked) var staged: [LoopInput<Event>] = []
    /// How many more requests the loop's queue takes, as of the last hand-over.
    @exclusivity(unchecked) var roomInQueue = 0
    private var shuttingDown = false
    private var loopStopped = false
    private var lastStallCheck: UInt64 = 0

    init(
        loop: DaemonLoop<Model, Event, Effect>, listener: FileDescriptor, signals: SignalFD, settings: ServerSettings,
        log: DaemonLog
    ) throws(SystemError) {
        self.loop = loop
        self.listener = listener
        self.signals = signals
        self.settings = settings
        self.log = log
        self.stats = loop.stats
        self.epoll = try Epoll()
        try epoll.add(listener, events: .readable, token: Token.listener)
        try epoll.add(loop.outbound.wakeup.fd, events: .readable, token: Token.outbound)
        try epoll.add(signals.fd, events: .readable, token: Token.signals)
        roomInQueue = loop.inbound.capacity
    }

    /// Stages a request for the loop. Returns `false` when the queue is full (the caller pauses reading).
    func stage(_ input: LoopInput<Event>) -> Bool {
        if roomInQueue == 0 || staged.count >= 4096 {
            handOverStaged()
            if roomInQueue == 0 { return false }
        }
        staged.append(input)
        roomInQueue -= 1
        return true
    }

    /// Hands the staged requests to the loop, in order.
    func handOverStaged() {
        roomInQueue = loop.inbound.offer(&staged)
    }

    /// Runs until a termination signal has been handled and the loop has stopped.
    func run() throws(SystemError) {
        var handedOver = false
        while !(shuttingDown && loopStopped && finishedFlushing()) {
            // Right after handing requests to the loop its answer is microseconds away: watch for it rather than
            // sleep in epoll and be woken (the one-at-a-time round trip is dominated by such wake-ups).
            let answerWaiting = handedOver && loop.outbound.watch(nanoseconds: 30_000)
            try epoll.wait(timeoutMilliseconds: answerWaiting ? 0 : (shuttingDown ? 50 : 1000)) { token, events in
                switch token {
                case Token.listener: acceptConnections()
                case Token.outbound: deliverLoopOutput()
                case Token.signals: handleSignals()
                default: handle(events, on: token)
                }
            }
            handedOver = !staged.isEmpty
            handOverStaged()
            flushDirty()
            checkStalls()
        }
        for connection in Array(connections.values) {
            close(connection, reason: nil)
        }
    }

    // MARK: - Accepting

    private func acceptConnections() {
        guard let listener else { return }
        while true {
            let accepted: FileDescriptor?
            do {
                accepted = try UnixSocket.accept(listener)
            } catch {
                log.error("control socket: \(error)")
                return
            }
            guard let fd = accepted else { return }
            admit(fd)
        }
    }

    private func admit(_ fd: FileDescriptor) {
        guard let peer = try? UnixSocket.peerCredentials(fd) else {
            fd.close()
            return
        }
        let perUser = connectionsPerUser[peer.uid, default: 0]
        if connections.count >= settings.maxConnections || perUser >= settings.maxConnectionsPerUser {
            let which =
                connections.count >= settings.maxConnections
                ? "the daemon has \(connections.count) connections (maxConnections \(settings.maxConnections))"
                : "uid \(peer.uid) has \(perUser) connections (maxConnectionsPerUser \(settings.maxConnectionsPerUser))"
            let line = JSONLine.error(.overloaded, "too many connections: \(which)", line: nil)
            _ = line.withUnsafeBytes { try? fd.write($0) }
            fd.close()
            log.warning("refused a connection from uid \(peer.uid): \(which)")
            return
        }
        let permissions = settings.access.permissions(for: peer)
        let id = nextConnectionID
        nextConnectionID += 1
        let connection = ClientConnection(
            id: id, fd: fd, peer: peer, canRead: permissions.read, canWrite: permissions.write)
        do {
            try epoll.add(fd, events: .readable, token: id)
        } catch {
            log.error("control socket: \(error)")
            fd.close()
            return
        }
        connection.registered = .readable
        connections[id] = connection
        connectionsPerUser[peer.uid, default: 0] += 1
        stats.connections.add(1, ordering: .relaxed)
        if shuttingDown { connection.closeAfterFlush = true }
    }

    // MARK: - Reading

    private func handle(_ events: Epoll.Events, on token: UInt64) {
        guard let connection = connections[token] else { return }
        if events.contains(.readable) || events.contains(.hangUp) || events.contains(.error) {
            read(connection)
        }
        guard connections[token] != nil else { return }
        if events.contains(.error) || (events.contains(.hangUp) && connection.readClosed) {
            // Both directions are gone: nothing more can be written.
            close(connection, reason: nil)
            return
        }
        if events.contains(.writable) { dirty.insert(connection.id) }
    }

    private func read(_ connection: ClientConnection) {
        var budget = 4
        while budget > 0, wantsInput(connection) {
            budget -= 1
            let outcome = readBuffer.withUnsafeMutableBytes { buffer in
                Result { () throws(SystemError) in try connection.fd.read(into: buffer) }
            }
            switch outcome {
            case .failure:
                close(connection, reason: nil)
                return
            case .success(.wouldBlock):
                return
            case .success(.endOfFile):
                connection.readClosed = true
                processLines(connection, atEndOfFile: true)
                finishIfDone(connection)
                return
            case .success(.transferred(let count)):
                compactInput(connection)
                connection.input.append(contentsOf: readBuffer[0..<count])
                processLines(connection, atEndOfFile: false)
            }
        }
    }

    private func wantsInput(_ connection: ClientConnection) -> Bool {
        !connection.readClosed && !connection.pausedForQueue && !connection.closeAfterFlush && !shuttingDown
            && connection.pendingOutputBytes < settings.maxOutputBytes
    }

    private func compactInput(_ connection: ClientConnection) {
        guard connection.inputStart > 0 else { return }
        if connection.inputStart == connection.input.count {
            connection.input.removeAll(keepingCapacity: connection.input.capacity <= 1 << 20)
        } else if connection.inputStart > 65536 {
            connection.input.removeFirst(connection.inputStart)
        } else {
            return
        }
        connection.scanFrom -= connection.inputStart
        connection.inputStart = 0
    }

    /// Handles every complete line in the connection's input (and, at end of file, a final unterminated one).
    func processLines(_ connection: ClientConnection, atEndOfFile: Bool) {
        let newline = UInt8(ascii: "\n")
        // One copy of the buffer reference for the whole batch of lines (handling a line never changes `input`).
        let input = connection.input
        while !connection.pausedForQueue && !connection.closeAfterFlush {
            let start = connection.inputStart
            let searchEnd = min(input.count, start + settings.maxLineBytes + 2)
            let found = input[max(connection.scanFrom, start)..<searchEnd].firstIndex(of: newline)
            var end: Int
            var next: Int
            if let found {
                end = found
                next = found + 1
            } else if atEndOfFile && start < input.count {
                end = input.count
                next = input.count
            } else {
                connection.scanFrom = searchEnd
                if input.count - start > settings.maxLineBytes + 1 {
                    lineTooLong(connection)
                }
                return
            }
            if end > start && input[end - 1] == UInt8(ascii: "\r") { end -= 1 }
            if end - start > settings.maxLineBytes {
                lineTooLong(connection)
                return
            }
            let accepted = handleLine(input[start..<end], on: connection)
            guard accepted else {
                // The loop's queue is full: keep the line and retry when it has room.
                connection.pausedForQueue = true
                pausedForQueue.append(connection.id)
                return
            }
            connection.linesConsumed += 1
            connection.inputStart = next
            connection.scanFrom = next
        }
    }

    private func lineTooLong(_ connection: ClientConnection) {
        let number = connection.linesConsumed + 1
        connection.linesConsumed += 1
        staged.append(.rejected)  // once per connection: it is closed after this
        connection.reply(
            .line(
                JSONLine.error(
                    .lineTooLong, "line \(number) is longer than maxLineBytes (\(settings.maxLineBytes) bytes)",
                    line: number)))
        connection.closeAfterFlush = true
        connection.input.removeAll()
        connection.inputStart = 0
        connection.scanFrom = 0
        dirty.insert(connection.id)
    }

    // MARK: - Loop output

    private func deliverLoopOutput() {
        // Replies come in runs for one connection (a pipelining client): look each connection up once per run.
        var recent: ClientConnection?
        for message in loop.outbound.takeAll() {
            switch message {
            case .reply(let id, let reply):
                if recent?.id != id {
                    guard let connection = connections[id] else { continue }
                    recent = connection
                    dirty.insert(id)
                }
                recent?.loopReplied(reply)
            case .model(let ids, let line):
                // Written at once, in subscription order, rather than through the dirty set: with many
                // subscribers the per-subscriber bookkeeping is what the fan-out latency tail is made of.
                let now = SystemProcess.monotonicNanoseconds()
                for id in ids {
                    guard let connection = connections[id] else { continue }
                    connection.offerModel(line)
                    flush(connection, now: now)
                }
            case .trace(let id, let line):
                guard let connection = connections[id] else { continue }
                connection.offerTrace(line, limit: settings.maxOutputBytes)
                dirty.insert(id)
            case .inboundSpace:
                resumePaused()
            case .release:
                break  // dropping the message frees the pass's inputs here, on the thread that allocated them
            case .stopped:
                loopStopped = true
            }
        }
    }

    private func resumePaused() {
        let waiting = pausedForQueue
        pausedForQueue.removeAll()
        for id in waiting {
            guard let connection = connections[id] else { continue }
            connection.pausedForQueue = false
            processLines(connection, atEndOfFile: connection.readClosed)
            finishIfDone(connection)
            if connections[id] != nil { dirty.insert(id) }
        }
    }

    // MARK: - Writing

    private func flushDirty() {
        guard !dirty.isEmpty else { return }
        let now = SystemProcess.monotonicNanoseconds()
        let ids = dirty
        dirty.removeAll(keepingCapacity: true)
        for id in ids {
            guard let connection = connections[id] else { continue }
            flush(connection, now: now)
        }
    }

    /// Writes what the socket takes now, then closes the connection if it is done or updates its epoll interest.
    private func flush(_ connection: ClientConnection, now: UInt64) {
        if case .failed = connection.write(now: now) {
            close(connection, reason: nil)
            return
        }
        finishIfDone(connection)
        if connections[connection.id] != nil { updateInterest(connection) }
    }

    /// Closes a connection that has nothing left to do: no more input, every reply written, no streams.
    private func finishIfDone(_ connection: ClientConnection) {
        guard connections[connection.id] != nil else { return }
        // After EOF, lines still buffered (waiting for room in the loop's queue) keep the connection open.
        let inputDone = connection.readClosed && connection.inputStart >= connection.input.count
        let noMoreInput = inputDone || connection.closeAfterFlush
        let streamsKeepItOpen = connection.hasStreams && !connection.closeAfterFlush && !shuttingDown
        if noMoreInput && !streamsKeepItOpen && connection.repliesSettled && connection.awaitingLoop == 0
            && connection.pendingOutputBytes == 0
        {
            close(connection, reason: nil)
        } else if connection.pendingOutputBytes > 0 {
            dirty.insert(connection.id)
        }
    }

    private func updateInterest(_ connection: ClientConnection) {
        var wanted: Epoll.Events = []
        if wantsInput(connection) { wanted.insert(.readable) }
        if connection.pendingOutputBytes > 0 { wanted.insert(.writable) }
        guard wanted != connection.registered else { return }
        do {
            try epoll.modify(connection.fd, events: wanted, token: connection.id)
            connection.registered = wanted
        } catch {
            close(connection, reason: "\(error)")
        }
    }

    private func checkStalls() {
        let now = SystemProcess.monotonicNanoseconds()
        guard now - lastStallCheck > 250_000_000 else { return }
        lastStallCheck = now
        let limit = UInt64(settings.stallTimeout * 1e9)
        for connection in Array(connections.values) where connection.pendingOutputBytes > 0 {
            if connection.lastProgress == 0 { connection.lastProgress = now }
            if now - connection.lastProgress > limit {
                close(connection, reason: "no write progress for \(settings.stallTimeout) s (stallTimeout)")
            }
        }
    }

    func close(_ connection: ClientConnection, reason: String?) {
        guard connections.removeValue(forKey: connection.id) != nil else { return }
        if let reason { log.warning("closing connection from uid \(connection.peer.uid): \(reason)") }
        epoll.remove(connection.fd)
        connection.fd.close()
        connectionsPerUser[connection.peer.uid, default: 1] -= 1
        if connectionsPerUser[connection.peer.uid] == 0 { connectionsPerUser[connection.peer.uid] = nil }
        stats.connections.subtract(1, ordering: .relaxed)
        dirty.remove(connection.id)
        if connection.hasStreams {
            // Never refused: one per connection, so it cannot grow the queue without bound.
            staged.append(.disconnected(connection.id))
        }
    }

    // MARK: - Shutdown

    private func handleSignals() {
        for signal in signals.take() {
            switch signal {
            case .terminate, .interrupt:
                beginShutdown(signal)
            case .hangUp:
                log.notice("SIGHUP: nothing to reload")
            }
        }
    }

    private func beginShutdown(_ signal: SignalFD.Signal) {
        guard !shuttingDown else { return }
        shuttingDown = true
        log.notice("\(signal == .terminate ? "SIGTERM" : "SIGINT"): shutting down")
        if let listener {
            epoll.remove(listener)
            listener.close()
            self.listener = nil
        }
        for connection in connections.values {
            connection.closeAfterFlush = true
            answerUnreadLines(connection)
            updateInterest(connection)
        }
        staged.append(.stop)
        handOverStaged()
        shutdownDeadline = SystemProcess.monotonicNanoseconds() + UInt64(settings.shutdownFlushSeconds * 1e9)
    }

    private var shutdownDeadline: UInt64 = .max

    /// Complete lines already read but not handed to the loop get `ShuttingDown`.
    private func answerUnreadLines(_ connection: ClientConnection) {
        let input = connection.input
        var start = connection.inputStart
        while let newline = input[start...].firstIndex(of: UInt8(ascii: "\n")) {
            let line = RequestLine.classify(input[start..<newline])
            connection.linesConsumed += 1
            if case .blank = line {
            } else if !line.isEventLike || connection.replyMode != .off {
                connection.reply(
                    .line(
                        JSONLine.error(
                            .shuttingDown, "the daemon is shutting down", line: connection.linesConsumed)))
            }
            start = newline + 1
        }
        connection.inputStart = start
        connection.scanFrom = start
        dirty.insert(connection.id)
    }

    private func finishedFlushing() -> Bool {
        if SystemProcess.monotonicNanoseconds() > shutdownDeadline { return true }
        return connections.values.allSatisfy { $0.pendingOutputBytes == 0 && $0.awaitingLoop == 0 }
    }
}
