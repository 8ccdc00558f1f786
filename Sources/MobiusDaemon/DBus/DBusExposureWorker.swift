import MobiusJSON
import MobiusSystem

/// The bus thread of an exposure (config `expose`; docs/dbus.md, "The model on D-Bus"): connects, owns the name and
/// serves the app's object on `org.mobiusd.App1` with the standard Introspectable, Properties and Peer, on a thread
/// of its own like a source's bus, because connecting and `RequestName` are blocking calls.
///
/// It takes the committed state and the replies to `Send` from a `DBusExposureMailbox`, and posts each `Send` to the
/// loop through an `EventInbox` as a client input, answered when its reply comes back (after the journal commit).
/// Bounds: at most `maxCallsInFlight` calls (and `maxBytesInFlight` bytes of events) wait for the loop, and at
/// most `maxOutgoingBytes` wait to be written; past either the thread stops taking messages from libdbus, which
/// stops reading the socket once it holds `maxReceivedBytes`, so a flood waits in the bus, as a socket client's
/// lines wait in the kernel. When the bus goes away it backs off (0.25 s doubling to 30 s), reconnects and asks for
/// the name again.
final class DBusExposureWorker: @unchecked Sendable {
    // @unchecked: everything below `Bus thread only` is touched by the bus thread alone; `hasEnded` only inside
    // `ended`'s lock; the mailbox, the inbox and the status are thread-safe.
    let config: DaemonConfig.Expose
    let epoch: String
    let mailbox: DBusExposureMailbox
    let inbox: EventInbox<ClientInput>
    let status: DBusExposureStatus
    let log: DaemonLog
    /// The loop reads compact events as text (`RequestState.eventsAsText`).
    let eventsAsText: Bool
    /// The longest event `Send` takes (`socket.maxLineBytes`).
    let maxEventBytes: Int
    /// The most text one reply may carry (`Model`, `Get`): `socket.maxOutputBytes`, at most `busMessageLimit`.
    let maxReplyBytes: Int
    /// The object's introspection document.
    let introspection: String
    private let firstAttemptSettled: @Sendable () -> Void
    /// Told when the thread has ended: its last calls answered and its connection flushed and closed.
    private let ended = ThreadCondition()
    private var hasEnded = false

    // Bus thread only.
    var connection: DBusConnection?
    /// The newest committed state taken from the mailbox; `nil` until the loop has started.
    var committed: DBusExposureMailbox.Committed?
    var values: ExposedValues
    /// What the last `PropertiesChanged` announced (or the first state, which needs none).
    var announced = Announced(seq: 0, values: [])
    var modelChangedSinceAnnounced = false
    /// The model's JSON text, made when first asked for after each change.
    var modelText: [UInt8]?
    var ownsName = false
    var shuttingDown = false
    /// `Send` calls waiting for the loop's reply, by their number.
    var calls: [UInt32: WaitingCall] = [:]
    var nextCall: UInt32 = 0
    var bytesInFlight = 0

    static let interface = DBusIntrospection.appInterface
    static let maxCallsInFlight = 1024
    static let maxBytesInFlight = 16 << 20
    static let maxOutgoingBytes = 16 << 20
    static let maxReceivedBytes = 32 << 20
    /// The system bus's default `max_message_size`; a connection that sends a bigger message is dropped by the bus.
    static let busMessageLimit = 32 << 20
    /// Room for the header and the other values of a message carrying model text.
    static let messageMargin = 64 << 10
    /// The JSON parser recurses once per nesting level (at most 512), as on the parse thread.
    static let stackSize = 4 << 20

    /// The seq and the property values a `PropertiesChanged` announced.
    struct Announced {
        let seq: UInt64
        let values: [DBusArgument]
    }

    /// A `Send` call handed to the loop.
    struct WaitingCall {
        /// The call, to reply to; `nil` once the connection it came on is gone (the reply is then dropped).
        var call: DBusMessage?
        let bytes: Int
    }

    /// - Parameters:
    ///   - maxEventBytes: the longest event `Send` takes (`socket.maxLineBytes`).
    ///   - maxReplyBytes: the most model text one reply carries (`socket.maxOutputBytes`).
    ///   - settled: called once (on the bus thread) when the first attempt has finished either way.
    init(
        config: DaemonConfig.Expose, epoch: String, inbox: EventInbox<ClientInput>, eventsAsText: Bool,
        maxEventBytes: Int, maxReplyBytes: Int, log: DaemonLog, settled: @escaping @Sendable () -> Void
    ) throws(SystemError) {
        self.config = config
        self.epoch = epoch
        self.inbox = inbox
        self.eventsAsText = eventsAsText
        self.maxEventBytes = maxEventBytes
        self.maxReplyBytes = min(maxReplyBytes, Self.busMessageLimit - Self.messageMargin)
        self.log = log
        self.firstAttemptSettled = settled
        mailbox = try DBusExposureMailbox()
        status = DBusExposureStatus(config: config)
        values = ExposedValues(properties: config.properties)
        introspection = DBusIntrospection.object(properties: config.properties)
    }

    /// Starts the bus thread.
    func start() throws(SystemError) {
        try SystemThread.spawn(name: "mobiusd-dbus", stackSize: Self.stackSize) { [self] in
            run()
            ended.withLock { hasEnded = true }
            ended.broadcast()
        }
    }

    /// Waits until the thread has ended, at most `timeoutNanoseconds`; `false` when it has not.
    func waitUntilEnded(timeoutNanoseconds: UInt64) -> Bool {
        let deadline = SystemProcess.monotonicNanoseconds() + timeoutNanoseconds
        return ended.withLock {
            while !hasEnded {
                let now = SystemProcess.monotonicNanoseconds()
                guard now < deadline, ended.wait(timeoutNanoseconds: deadline - now) || hasEnded else { return false }
            }
            return true
        }
    }

    func setState(_ new: DBusExposureState, error: String? = nil) {
        status.update { figures in
            figures.state = new
            if let error { figures.lastError = error }
        }
    }

    /// Whether another message may be taken from libdbus now (`Send` calls and replies within their bounds).
    func hasRoom(_ connection: DBusConnection) -> Bool {
        calls.count < Self.maxCallsInFlight && bytesInFlight < Self.maxBytesInFlight
            && connection.outgoingSize < Self.maxOutgoingBytes
    }

    // MARK: - The bus thread

    private func run() {
        let waitSet: Epoll
        do {
            waitSet = try Epoll(capacity: 4)
            try waitSet.add(mailbox.wake.fd, events: .readable, token: 2)
        } catch {
            log.error("D-Bus expose \(config.bus): cannot start its thread: \(error)")
            firstAttemptSettled()
            return
        }
        // Whichever way the thread ends, the loop takes nothing more from it.
        defer { inbox.close() }
        // The name goes on the bus once the loop has started: before that there is no model to serve.
        while committed == nil {
            guard absorbMailbox() else {
                firstAttemptSettled()
                return
            }
            if committed == nil { try? waitSet.wait(timeoutMilliseconds: -1) { _, _ in mailbox.wake.drain() } }
        }
        var rhythm = DBusReconnection(whenFirstSettled: firstAttemptSettled)
        while true {
            let retry = rhythm.attempt()
            setState(.connecting)
            do {
                let connection = try connect()
                self.connection = connection
                rhythm.connected()
                if retry { status.update { $0.reconnects += 1 } }
                noteOwnership(connection)
                rhythm.settle()
                guard serve(connection, waitSet: waitSet) else {
                    answerLastCalls(connection)
                    return
                }
                self.connection = nil
                ownsName = false
                connection.close()
                forgetCalls()
                setState(.backoff, error: "the bus closed the connection")
                log.warning("D-Bus expose \(config.bus): connection lost; reconnecting in \(rhythm.delay) s")
            } catch {
                setState(.backoff, error: error.description)
                log.limited(
                    "dbus expose", .warning, "D-Bus expose \(config.bus): \(error); retrying in \(rhythm.delay) s")
            }
            rhythm.settle()
            guard pause(seconds: rhythm.delay, waitSet: waitSet) else { return }
            rhythm.waited()
        }
    }

    /// Connects and asks for the name (queueing behind another owner).
    private func connect() throws(DBusFailure) -> DBusConnection {
        let connection = try DBusConnection.open(bus: config.bus)
        connection.limitReceived(bytes: Self.maxReceivedBytes)
        connection.setFilter { [unowned self] message in handle(message) }
        do {
            ownsName = try connection.requestName(config.name) == .owner
        } catch {
            connection.close()
            throw error
        }
        return connection
    }

    /// Logs and shows whether the connection owns the name or waits for it.
    func noteOwnership(_ connection: DBusConnection) {
        let who = connection.uniqueName ?? "?"
        if ownsName {
            setState(.connected)
            log.notice("D-Bus expose \(config.bus): \(config.name) is served at \(config.path) as \(who)")
        } else {
            setState(.queued, error: "\(config.name) is owned by another connection")
            log.warning(
                "D-Bus expose \(config.bus): \(config.name) is owned by another connection; \(who) waits in its queue")
        }
    }

    /// Serves until the connection is lost (`true`) or the daemon stops (`false`).
    private func serve(_ connection: DBusConnection, waitSet: Epoll) -> Bool {
        guard let socket = connection.socket else { return true }
        var watching: Epoll.Events = .readable
        do {
            try waitSet.add(socket, events: watching, token: 1)
        } catch {
            log.error("D-Bus expose \(config.bus): cannot watch its socket: \(error)")
            return true
        }
        defer { waitSet.remove(socket) }
        while true {
            guard absorbMailbox() else { return false }
            announceChanges()
            while hasRoom(connection) && connection.dispatchOne() {}
            guard connection.isConnected else { return true }
            // At a bound nothing more is read; the mailbox's replies make room again.
            var wanted: Epoll.Events = hasRoom(connection) ? .readable : []
            if connection.hasMessagesToSend { wanted.insert(.writable) }
            if wanted != watching {
                try? waitSet.modify(socket, events: wanted, token: 1)
                watching = wanted
            }
            var socketReady = false
            do {
                try waitSet.wait(timeoutMilliseconds: -1) { token, _ in
                    if token == 1 { socketReady = true } else { mailbox.wake.drain() }
                }
            } catch {
                log.error("D-Bus expose \(config.bus): epoll_wait failed: \(error)")
                return true
            }
            if socketReady { connection.readWrite() }
        }
    }

    /// Sleeps `seconds` unless the daemon stops (`false`); what the reactor hands over meanwhile is taken.
    private func pause(seconds: Double, waitSet: Epoll) -> Bool {
        let deadline = SystemProcess.monotonicNanoseconds() + UInt64(seconds * 1e9)
        while true {
            guard absorbMailbox() else { return false }
            let now = SystemProcess.monotonicNanoseconds()
            guard now < deadline else { return true }
            let milliseconds = Int32(min((deadline - now) / 1_000_000 + 1, 60_000))
            try? waitSet.wait(timeoutMilliseconds: milliseconds) { _, _ in mailbox.wake.drain() }
        }
    }

    /// Takes what the reactor handed over: the newest state first, then the replies, so that a caller answered can
    /// read the state its event led to. `false` when the daemon stops.
    func absorbMailbox() -> Bool {
        let taken = mailbox.take()
        if let state = taken.committed { apply(state) }
        for (number, reply) in taken.replies { answer(call: number, with: reply) }
        shuttingDown = taken.shuttingDown
        return !taken.stop
    }

    /// The calls of a lost connection cannot be answered: their replies are dropped when they come (they still
    /// count against the bounds until then).
    private func forgetCalls() {
        for number in calls.keys { calls[number]?.call = nil }
    }

    /// The daemon stops: what the loop answered goes out, calls it did not answer get `ShuttingDown`, and the
    /// connection is flushed and closed.
    private func answerLastCalls(_ connection: DBusConnection) {
        _ = absorbMailbox()
        for number in calls.keys.sorted() {
            answer(call: number, with: .line(JSONLine.error(.shuttingDown, "the daemon is shutting down", line: nil)))
        }
        connection.flush()
        self.connection = nil
        connection.close()
    }
}
