import MobiusJSON
import MobiusSystem

/// The control socket on the reactor: accepts clients, and routes to each connection (which reads, frames and
/// interprets its own lines and writes its own output) its readiness, the loop's room, the replies committed passes
/// hand back and the batches the parse thread returns. It never blocks on a client: sockets are non-blocking,
/// output is bounded per connection, a connection's requests go to the loop only while its unsent and owed output
/// is under `maxOutputBytes`, and a full loop queue pauses reading instead of dropping anything read.
final class ControlServer {
    let loop: LoopPort
    let reactor: Reactor
    /// Limits and access rules; a reload replaces them (`apply(_:)`).
    var settings: ServerSettings
    let log: DaemonLog
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
    // Owned by the reactor thread, like everything here.
    var connections = SlotTable<ClientConnection>()
    var connectionsPerUser: [UInt32: Int] = [:]
    /// Connections with output to write at the end of this round.
    var dirty: [ClientConnection] = []
    /// Connections whose lines wait for owed replies or unsent output to shrink (`ConnectionState.Waits.output`).
    var outputWaiters: [ClientConnection] = []
    var readBuffer = [UInt8](repeating: 0, count: 256 * 1024)
    var shuttingDown = false
    var stallTimer: ReactorTimers.ID?
    /// Carries out `reload` and `plugin` (for the runtime, which owns the server).
    let controlHandler: any ControlCommandHandler
    /// Where `log` streams read from: the journal. Unowned: the journal outlives the server (a weak reference would
    /// give the journal a side table, slowing each retain).
    unowned let logSource: any LogSource
    /// The `log` streams (the journal's).
    let logStreams: LogStreams
    /// Set while accept is paused for lack of descriptors.
    var acceptPause: AcceptPause?
    /// Takes the replies to requests from outside the socket (D-Bus `Send`); `nil` when there are none.
    let foreignReplies: (any ForeignReplyRecipient)?

    init(
        loop: LoopPort, reactor: Reactor, listener: FileDescriptor, settings: ServerSettings,
        log: DaemonLog, parser: BlockingWorker, logSource: any LogSource, commands: any ControlCommandHandler,
        foreignReplies: (any ForeignReplyRecipient)?
    ) throws(SystemError) {
        self.logSource = logSource
        self.logStreams = logSource.logStreams
        self.foreignReplies = foreignReplies
        self.loop = loop
        self.reactor = reactor
        self.settings = settings
        self.log = log
        self.parser = parser
        self.controlHandler = commands
        let handler = ControlListener(fd: listener) { [unowned self] in acceptConnections() }
        self.listener = handler
        handler.registration = try reactor.register(listener, for: .readable, handler: handler)
    }

    /// Open connections (for `status`).
    var connectionCount: Int { connections.count }

    func connectionReady(_ connection: ClientConnection, _ events: Epoll.Events) {
        if events.contains(.readable) || events.contains(.hangUp) || events.contains(.error) {
            // The buffer is moved out while the connection reads into it, so that the read is made outside an
            // access to the stored property.
            var buffer: [UInt8] = []
            swap(&buffer, &readBuffer)
            let outcome = buffer.withUnsafeMutableBytes { connection.read(into: $0, server: self) }
            swap(&buffer, &readBuffer)
            switch outcome {
            case .failed:
                close(connection, reason: nil)
                return
            case .wouldBlock:
                break
            case .endOfFile:
                finishIfDone(connection)
                updateInterest(connection)
            case .read:
                // Its epoll interest is brought up to date at the end of the round, with its replies written: not
                // here, on the way from a client's request to its reply.
                if connection.state.isOpen { markDirty(connection) }
            }
        }
        guard connection.state.isOpen else { return }
        if events.contains(.error) || (events.contains(.hangUp) && connection.state.peerFinished) {
            // Both directions are gone: nothing more can be written.
            close(connection, reason: nil)
            return
        }
        if events.contains(.writable) { markDirty(connection) }
    }

    /// Whether the connection may hand the loop `line` now; if not, it waits (and is resumed after the next pass
    /// that makes room). While plugins push back (`EdgeBackpressure`) only events wait: a command (`status`,
    /// `ping`, …) still goes in, so an operator can see why the daemon is holding back.
    func mayHandOver(_ connection: ClientConnection, line: ArraySlice<UInt8>) -> Bool {
        guard loop.room() > 0 || (loop.commandRoom() > 0 && !RequestLine.classify(line).isEventLike) else {
            if connection.state.waitForRoom() == .askForRoom {
                loop.notifyWhenRoom { [weak self, weak connection] in
                    guard let self, let connection, connection.state.roomArrived() == .resume else { return }
                    resume(connection)
                }
            }
            return false
        }
        guard connection.mayRequest(limit: settings.maxOutputBytes) else {
            if connection.state.waitForOutput() == .joinOutputWaiters {
                var list: [ClientConnection] = []
                swap(&list, &outputWaiters)
                list.append(connection)
                swap(&list, &outputWaiters)
            }
            return false
        }
        return true
    }

    /// Goes on with a connection's buffered lines after it had to wait.
    func resume(_ connection: ClientConnection) {
        connection.processLines(self)
        finishIfDone(connection)
        if connection.state.isOpen { updateInterest(connection) }
    }

    // MARK: - Interest and closing

    func updateInterest(_ connection: ClientConnection) {
        do {
            try connection.updateInterest(self)
        } catch {
            close(connection, reason: "\(error)")
        }
    }

    /// Closes a connection that has nothing left to do: no more input, every reply written, no streams.
    func finishIfDone(_ connection: ClientConnection) {
        guard connection.state.isOpen else { return }
        if connection.isDone(shuttingDown: shuttingDown) {
            close(connection, reason: nil)
        } else if connection.pendingOutputBytes > 0 {
            markDirty(connection)
        }
    }

    func close(_ connection: ClientConnection, reason: String?) {
        var table = SlotTable<ClientConnection>()
        swap(&table, &connections)
        let removed = table.remove(connection.id)
        swap(&table, &connections)
        guard removed != nil, connection.state.close() else { return }
        if let reason {
            log.limited("connection closed", .warning, "closing connection from uid \(connection.peer.uid): \(reason)")
        }
        if let registration = connection.registration { reactor.unregister(registration) }
        connection.fd.close()
        if connection.logStream != nil { logStreams.ended(connection.id) }
        connectionsPerUser[connection.peer.uid, default: 1] -= 1
        if connectionsPerUser[connection.peer.uid] == 0 { connectionsPerUser[connection.peer.uid] = nil }
        if connection.hasStreams {
            // Never refused: one per connection, so it cannot grow the queue without bound.
            loop.enqueue(.disconnected(connection.id))
        }
        descriptorFreed()
    }

    func markDirty(_ connection: ClientConnection) {
        guard connection.state.queueForFlush() else { return }
        // The server's lists grow while moved out of the object (docs/architecture.md, "Exclusivity").
        var list: [ClientConnection] = []
        swap(&list, &dirty)
        list.append(connection)
        swap(&list, &dirty)
    }
}
