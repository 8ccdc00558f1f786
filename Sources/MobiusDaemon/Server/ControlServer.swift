import MobiusJSON
import MobiusSystem

/// The control socket on the reactor: accepts clients, frames their request lines, turns each line into an input
/// for the loop's next pass, and writes what committed passes hand back. It never blocks on a client: sockets are
/// non-blocking, output is bounded per connection, a connection's requests go to the loop only while its unsent
/// and owed output is under `maxOutputBytes`, and a full loop queue pauses reading instead of dropping anything
/// read.
final class ControlServer: ClientConnectionOwner {
    let loop: LoopPort
    let reactor: Reactor
    /// Limits and access rules; a reload replaces them (`apply(_:)`).
    var settings: ServerSettings
    let log: DaemonLog
    let worker: BlockingWorker
    /// The thread that interprets big batches of lines (a pipelining client's) while the reactor applies the last.
    let parser: BlockingWorker
    /// Batches out at the parse thread or still being handed to the loop (shutdown waits for them).
    var batchesOut = 0
    /// Batches back from the parse thread with inputs still to hand to the loop (`continueHandOvers`), at most one
    /// per connection; they count in `batchesOut` until their last input is handed over.
    var returnedBatches: [ReturnedBatch] = []
    /// Their inputs not yet handed over: the loop's room for the next batch leaves them out.
    var inputsAwaitingHandOver: Int { returnedBatches.reduce(0) { $0 + $1.remaining } }
    var listener: ControlListener?
    // Owned by the reactor thread, like everything here; exclusivity checks are off for the hot properties (see
    // ClientConnection).
    @exclusivity(unchecked) var connections = SlotTable<ClientConnection>()
    var connectionsPerUser: [UInt32: Int] = [:]
    var groupCache = GroupMembershipCache()
    /// Connections with output to write at the end of this round.
    @exclusivity(unchecked) var dirty: [ClientConnection] = []
    /// Connections with lines waiting for room in the loop's queue or for owed replies.
    @exclusivity(unchecked) var waitingToRequest: [ClientConnection] = []
    @exclusivity(unchecked) var readBuffer = [UInt8](repeating: 0, count: 256 * 1024)
    @exclusivity(unchecked) var shuttingDown = false
    var stallTimer: ReactorTimers.ID?
    /// Carries out `reload` and `plugin` (the runtime, which owns the server); without one they are `Unavailable`.
    /// Unowned, not weak: a weak reference gives the runtime a side table, which sends every retain and release of
    /// it down the slow path (`3 one at a time` in Benchmarks/DaemonBench).
    unowned var controlHandler: (any ControlCommandHandler)?
    /// `log` streams and where they read from.
    let logStreams = LogStreams()
    /// Set while accept is paused for lack of descriptors.
    var acceptPause: AcceptPause?

    init(
        loop: LoopPort, reactor: Reactor, listener: FileDescriptor, settings: ServerSettings,
        log: DaemonLog, worker: BlockingWorker, parser: BlockingWorker
    ) throws(SystemError) {
        self.loop = loop
        self.reactor = reactor
        self.settings = settings
        self.log = log
        self.worker = worker
        self.parser = parser
        let handler = ControlListener(fd: listener)
        self.listener = handler
        handler.onReady = { [unowned self] in acceptConnections() }
        handler.registration = try reactor.register(listener, for: .readable, handler: handler)
    }

    /// Open connections (for `status`).
    var connectionCount: Int { connections.count }

    func connectionReady(_ connection: ClientConnection, _ events: Epoll.Events) {
        if events.contains(.readable) || events.contains(.hangUp) || events.contains(.error) {
            read(connection)
        }
        guard connection.isOpen else { return }
        if events.contains(.error) || (events.contains(.hangUp) && connection.readClosed) {
            // Both directions are gone: nothing more can be written.
            close(connection, reason: nil)
            return
        }
        if events.contains(.writable) { markDirty(connection) }
    }

    // MARK: - Reading

    private func read(_ connection: ClientConnection) {
        var budget = 4
        reading: while budget > 0, wantsInput(connection) {
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
                processLines(connection)
                finishIfDone(connection)
                updateInterest(connection)
                return
            case .success(.transferred(let count)):
                compactInput(connection)
                connection.input.append(contentsOf: readBuffer[0..<count])
                processLines(connection)
                // A short read drained the socket: reading again would only return EAGAIN, a wasted system call
                // per request for one-at-a-time clients. Level-triggered epoll reports anything that arrives later.
                if count < readBuffer.count { break reading }
            }
        }
        // Its epoll interest is brought up to date at the end of the round, with its replies written: not here, on
        // the way from a client's request to its reply.
        if connection.isOpen { markDirty(connection) }
    }

    /// Whether to read more from the socket: not after EOF, `quit` or shutdown, and not while lines already read
    /// wait (for room in the loop's queue, or for output to drain). While a batch is at the parse thread, reading
    /// goes on up to one more batch, so the next one is ready when it comes back.
    func wantsInput(_ connection: ClientConnection) -> Bool {
        connection.requests != nil && !connection.readClosed && !connection.pausedForQueue
            && !connection.closeAfterFlush && !shuttingDown && !connection.waitingToRequest
            && connection.mayRequest(limit: settings.maxOutputBytes)
            && (!(connection.batchOut || connection.handingOver)
                || connection.input.count - connection.inputStart < Self.batchBytes)
    }

    /// Drops consumed input: all of it (keeping the buffer), or a long consumed head. Done where a connection's
    /// output is flushed, after its replies; a read does it too, for input that came while no flush ran.
    func compactInput(_ connection: ClientConnection) {
        guard connection.inputStart > 0 else { return }
        if connection.inputStart == connection.input.count {
            connection.input.empty(keepingAtMost: 1 << 20)
        } else if connection.inputStart > 65536 {
            connection.input.removeFirst(connection.inputStart)
        } else {
            return
        }
        connection.scanFrom -= connection.inputStart
        connection.inputStart = 0
    }

    /// The largest input buffer whose events' texts are slices of it rather than copies (see `processLines`). Small,
    /// because a queued event keeps its buffer alive: a client whose every read gets a new buffer (the pass still
    /// holding the last one) pins at most this much per queued event, not a copy's few dozen bytes.
    static var sharedInputBytes: Int { 256 }

    /// Hands every complete line in the connection's input (and, after EOF, a final unterminated one) to the loop,
    /// while the loop has room and the connection's output bound allows.
    func processLines(_ connection: ClientConnection) {
        let newline = UInt8(ascii: "\n")
        while !connection.closeAfterFlush && connection.isOpen && !connection.batchOut {
            if sendBatch(connection) { return }
            // Lines after a batch still being handed over wait for it, so that replies stay in line order.
            guard !connection.handingOver else { return }
            let input = connection.input
            let start = connection.inputStart
            guard start < input.count else { return }
            let searchEnd = min(input.count, start + settings.maxLineBytes + 2)
            let searchStart = max(connection.scanFrom, start)
            let found = ByteSearch.firstIndex(of: newline, in: input[searchStart..<searchEnd])
            var end: Int
            var next: Int
            if let found {
                end = found
                next = found + 1
            } else if connection.readClosed {
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
            guard connection.requests?.awaitingControl != true, mayHandOver(connection, line: input[start..<end]),
                var state = connection.requests
            else { return }
            connection.linesConsumed += 1
            connection.inputStart = next
            connection.scanFrom = next
            if let request = RequestInterpreter.interpret(
                input[start..<end], number: connection.linesConsumed, state: &state)
            {
                // An event's text is a slice of the connection's input. While the pass holds it, the next read that
                // changes the input copies the buffer (copy-on-write), so the text of a big buffer gets bytes of its
                // own instead; a small buffer (a one-at-a-time client's) is shared, saving an allocation per event.
                if connection.input.capacity > Self.sharedInputBytes,
                    case .event(let json, let text?, let ticket) = request
                {
                    submit(.event(json, text: Array(text)[...], ticket), on: connection)
                } else {
                    submit(request, on: connection)
                }
            }
            connection.requests = state
            if state.quit { connection.closeAfterFlush = true }
        }
    }

    /// Hands `input` to the loop and records the reply the connection is now owed.
    func submit(_ input: consuming ClientInput, on connection: ClientConnection) {
        connection.expectReply(estimate: RequestInterpreter.replyEstimate(input))
        loop.enqueue(input)
    }

    /// Whether the connection may hand the loop `line` now; if not, it waits (and is resumed after the next pass
    /// that makes room). While plugins push back (`EdgeBackpressure`) only events wait: a command (`status`,
    /// `ping`, …) still goes in, so an operator can see why the daemon is holding back.
    private func mayHandOver(_ connection: ClientConnection, line: ArraySlice<UInt8>) -> Bool {
        guard loop.room() > 0 || (loop.commandRoom() > 0 && !RequestLine.classify(line).isEventLike) else {
            if !connection.pausedForQueue {
                connection.pausedForQueue = true
                loop.notifyWhenRoom { [weak self, weak connection] in
                    guard let self, let connection, connection.isOpen else { return }
                    connection.pausedForQueue = false
                    resume(connection)
                }
            }
            return false
        }
        guard connection.mayRequest(limit: settings.maxOutputBytes) else {
            if !connection.waitingToRequest {
                connection.waitingToRequest = true
                waitingToRequest.append(connection)
            }
            return false
        }
        return true
    }

    /// Goes on with a connection's buffered lines after it had to wait.
    func resume(_ connection: ClientConnection) {
        processLines(connection)
        finishIfDone(connection)
        if connection.isOpen { updateInterest(connection) }
    }

    private func lineTooLong(_ connection: ClientConnection) {
        connection.linesConsumed += 1
        let number = connection.linesConsumed
        let message = "line \(number) is longer than maxLineBytes (\(settings.maxLineBytes) bytes)"
        // Answered even under `reply off`, since the connection takes no more requests after it; counted as
        // rejected, since a line that long cannot be told apart from an event.
        submit(
            .rejected(.lineTooLong, message, ReplyTicket(connection: connection.id, line: number, mode: .on)),
            on: connection)
        connection.closeAfterFlush = true
        connection.input.removeAll()
        connection.inputStart = 0
        connection.scanFrom = 0
    }

    // MARK: - Interest and closing

    func updateInterest(_ connection: ClientConnection) {
        guard let registration = connection.registration else { return }
        let wanted = Epoll.Events(
            rawValue: (wantsInput(connection) ? Epoll.Events.readable.rawValue : 0)
                | (connection.pendingOutputBytes > 0 ? Epoll.Events.writable.rawValue : 0))
        guard wanted != connection.interest else { return }
        do {
            try reactor.update(registration, to: wanted)
            connection.interest = wanted
        } catch {
            close(connection, reason: "\(error)")
        }
    }

    /// Closes a connection that has nothing left to do: no more input, every reply written, no streams.
    func finishIfDone(_ connection: ClientConnection) {
        guard connection.isOpen else { return }
        // After EOF, lines still buffered (waiting for the loop or for output to drain) keep the connection open.
        let inputDone = connection.readClosed && connection.inputStart >= connection.input.count
        let noMoreInput = inputDone || connection.closeAfterFlush
        let streamsKeepItOpen = connection.hasStreams && !connection.closeAfterFlush && !shuttingDown
        if noMoreInput && !streamsKeepItOpen && connection.awaitingLoop == 0 && connection.pendingOutputBytes == 0 {
            close(connection, reason: nil)
        } else if connection.pendingOutputBytes > 0 {
            markDirty(connection)
        }
    }

    func close(_ connection: ClientConnection, reason: String?) {
        guard connections.remove(connection.id) != nil else { return }
        connection.isOpen = false
        if let reason {
            log.limited("connection closed", .warning, "closing connection from uid \(connection.peer.uid): \(reason)")
        }
        if let registration = connection.registration { reactor.unregister(registration) }
        connection.fd.close()
        if connection.logStream != nil { logStreams.connections.removeAll { $0 == connection.id } }
        connectionsPerUser[connection.peer.uid, default: 1] -= 1
        if connectionsPerUser[connection.peer.uid] == 0 { connectionsPerUser[connection.peer.uid] = nil }
        if connection.hasStreams {
            // Never refused: one per connection, so it cannot grow the queue without bound.
            loop.enqueue(.disconnected(connection.id))
        }
        descriptorFreed()
    }

    func markDirty(_ connection: ClientConnection) {
        guard !connection.queuedForFlush else { return }
        connection.queuedForFlush = true
        dirty.append(connection)
    }
}
