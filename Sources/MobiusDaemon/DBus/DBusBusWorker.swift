import MobiusJSON
import MobiusSystem
import Synchronization

/// One bus connection on a thread of its own: connects (blocking calls, which must not hold up the reactor),
/// adds the sources' matches, runs their initial reads, then waits in epoll on the bus socket and a wake-up
/// eventfd, dispatching each message to the sources that match it. Events go to the loop through an
/// `EventInbox` with the `dropNewest` policy: the thread must keep draining the socket, so a full inbox (or an
/// exhausted memory budget) drops the newest event and counts it. When the bus goes away the worker backs off
/// (0.25 s doubling to 30 s), reconnects, re-adds the matches and re-runs the reads. It never exits the daemon.
///
/// Idle, the thread sleeps in `epoll_wait` with no timeout (no pending call): no wake-ups.
final class DBusBusWorker: @unchecked Sendable {
    // @unchecked: everything below `Bus thread only` is touched by the bus thread alone; `commands` is behind
    // its mutex; the statuses, the inbox and the budget are thread-safe.
    let bus: String
    let sources: [DaemonConfig.DBusSource]
    let statuses: [DBusSourceStatus]
    let inbox: EventInbox<DBusDelivery>
    let log: DaemonLog
    let wake: EventFD
    let commands = Mutex<(queue: [DBusCommand], stop: Bool)>(([], false))
    /// Cost (bytes, estimated) of events posted and not yet taken by the loop.
    let inFlightCost = Atomic<Int>(0)
    /// Told once, when the first attempt has connected and read, or failed.
    private let firstAttemptSettled: @Sendable () -> Void

    // Bus thread only.
    var connection: DBusConnection?
    var owners: [String: String] = [:]
    var pendingCalls: [UInt32: PendingCall] = [:]
    var rereads: Set<Int> = []
    var state = DBusConnectionState.connecting
    /// Names whose owner is tracked: well-known senders of match rules and initial-read destinations.
    let trackedNames: [String]
    /// Arguments the match rules look at (highest `argN` plus one).
    let argumentCount: Int

    static let inboxCapacity = 4096
    /// Calls waiting for replies at once, per bus.
    static let maxPendingCalls = 1024
    /// Commands queued for the bus thread at once.
    static let maxQueuedCommands = 4096
    static let stackSize = 1 << 20

    /// A call waiting for its reply.
    struct PendingCall {
        let template: JSONValue
        let deadline: UInt64
        let what: String
    }

    /// - Parameters:
    ///   - wakeLoop: asks the reactor to take the inbox's items.
    ///   - settled: called once (on the bus thread) when the first attempt has finished either way.
    init(
        bus: String, sources: [DaemonConfig.DBusSource], log: DaemonLog, wakeLoop: @escaping @Sendable () -> Void,
        settled: @escaping @Sendable () -> Void
    ) throws(SystemError) {
        self.bus = bus
        self.sources = sources
        self.statuses = sources.map { DBusSourceStatus(name: $0.name, bus: bus) }
        self.log = log
        self.wake = try EventFD()
        self.firstAttemptSettled = settled
        inbox = EventInbox(kind: .dbus, capacity: Self.inboxCapacity, policy: .dropNewest, wake: wakeLoop)
        var names: [String] = []
        for source in sources {
            for name in [source.rule.wellKnownSender, source.initialRead?.destination].compactMap(\.self)
            where !name.hasPrefix(":") && !names.contains(name) {
                names.append(name)
            }
        }
        trackedNames = names
        argumentCount = sources.map { ($0.rule.arguments.keys.max() ?? -1) + 1 }.max() ?? 0
    }

    /// Starts the bus thread.
    func start() throws(SystemError) {
        try SystemThread.spawn(name: "mobiusd-dbus", stackSize: Self.stackSize) { [self] in run() }
    }

    /// Asks the bus thread to close the connection and end; does not wait (it may be inside a blocking call).
    func stop() {
        commands.withLock { $0.stop = true }
        wake.signal()
        inbox.close()
    }

    /// Hands a call or emission to the bus thread; `false` when too many are queued.
    func submit(_ command: DBusCommand) -> Bool {
        let accepted = commands.withLock { pending -> Bool in
            guard !pending.stop, pending.queue.count < Self.maxQueuedCommands else { return false }
            pending.queue.append(command)
            return true
        }
        if accepted { wake.signal() }
        return accepted
    }

    /// The loop took an event: its cost leaves the budget.
    func release(cost: Int) {
        inFlightCost.subtract(cost, ordering: .relaxed)
    }

    var stopRequested: Bool { commands.withLock { $0.stop } }

    func setState(_ new: DBusConnectionState, error: String? = nil) {
        state = new
        for status in statuses {
            status.update { figures in
                figures.state = new
                if let error { figures.lastError = error }
            }
        }
    }

    // MARK: - The bus thread

    private func run() {
        let waitSet: Epoll
        do {
            waitSet = try Epoll(capacity: 4)
            try waitSet.add(wake.fd, events: .readable, token: 2)
        } catch {
            log.error("D-Bus \(bus): cannot start its thread: \(error)")
            firstAttemptSettled()
            return
        }
        var rhythm = DBusReconnection(whenFirstSettled: firstAttemptSettled)
        while !stopRequested {
            let retry = rhythm.attempt()
            setState(.connecting)
            do {
                let connection = try connect()
                self.connection = connection
                rhythm.connected()
                if retry { for status in statuses { status.update { $0.reconnects += 1 } } }
                setState(.connected)
                log.notice("D-Bus \(bus): connected as \(connection.uniqueName ?? "?"), \(sources.count) source(s)")
                runReads(Array(sources.indices).filter { sources[$0].initialRead != nil })
                rhythm.settle()
                serve(connection, waitSet: waitSet)
                self.connection = nil
                connection.close()
                failPendingCalls(.disconnected("the connection to the bus was lost"))
                guard !stopRequested else { break }
                setState(.backoff, error: "the bus closed the connection")
                log.warning("D-Bus \(bus): connection lost; reconnecting in \(rhythm.delay) s")
            } catch {
                setState(.backoff, error: error.description)
                log.limited("dbus \(bus)", .warning, "D-Bus \(bus): \(error); retrying in \(rhythm.delay) s")
            }
            rhythm.settle()
            guard pause(seconds: rhythm.delay, waitSet: waitSet) else { break }
            rhythm.waited()
        }
        failPendingCalls(.disconnected("the daemon is stopping"))
    }

    /// Connects, installs the filter, adds every match and learns the tracked names' owners.
    private func connect() throws(DBusFailure) -> DBusConnection {
        let connection = try DBusConnection.open(bus: bus)
        do {
            connection.setFilter { [unowned self] message in handle(message) }
            for source in sources { try connection.addMatch(source.rule.text) }
            owners = [:]
            for name in trackedNames {
                try connection.addMatch(Self.ownerChangeRule(name))
                if let owner = try? nameOwner(name, connection) { owners[name] = owner }
            }
        } catch {
            connection.close()
            throw error
        }
        return connection
    }

    static func ownerChangeRule(_ name: String) -> String {
        "type='signal',sender='org.freedesktop.DBus',interface='org.freedesktop.DBus',member='NameOwnerChanged',"
            + "arg0=" + DBusMatchRule.quote(name)
    }

    private func nameOwner(_ name: String, _ connection: DBusConnection) throws -> String? {
        let call = DBusMethodCall(
            destination: "org.freedesktop.DBus", path: "/org/freedesktop/DBus", interface: "org.freedesktop.DBus",
            member: "GetNameOwner", arguments: [.string(name)], timeout: 5)
        guard let message = call.message() else { return nil }
        let reply = try connection.call(message, timeoutMilliseconds: 5000)
        return try reply.arguments(limits: DBusReadLimits()).values.first?.stringValue
    }

    /// Waits on the socket and the wake-up until the connection is lost or the daemon stops.
    private func serve(_ connection: DBusConnection, waitSet: Epoll) {
        guard let socket = connection.socket else { return }
        var watching: Epoll.Events = .readable
        do {
            try waitSet.add(socket, events: watching, token: 1)
        } catch {
            log.error("D-Bus \(bus): cannot watch its socket: \(error)")
            return
        }
        defer { waitSet.remove(socket) }
        while true {
            connection.dispatchAll()
            if !rereads.isEmpty {
                let indices = rereads.sorted()
                rereads.removeAll()
                runReads(indices)
                continue
            }
            guard connection.isConnected else { return }
            guard takeCommands(connected: connection) else { return }
            let wanted: Epoll.Events = connection.hasMessagesToSend ? [.readable, .writable] : .readable
            if wanted != watching {
                try? waitSet.modify(socket, events: wanted, token: 1)
                watching = wanted
            }
            var socketReady = false
            do {
                try waitSet.wait(timeoutMilliseconds: nextCallTimeout()) { token, _ in
                    if token == 1 { socketReady = true } else { wake.drain() }
                }
            } catch {
                log.error("D-Bus \(bus): epoll_wait failed: \(error)")
                return
            }
            if socketReady { connection.readWrite() }
            expireCalls()
        }
    }

    /// Sleeps `seconds` unless the daemon stops (`false`); commands arriving meanwhile fail at once.
    private func pause(seconds: Double, waitSet: Epoll) -> Bool {
        let deadline = SystemProcess.monotonicNanoseconds() + UInt64(seconds * 1e9)
        while true {
            guard takeCommands(connected: nil) else { return false }
            let now = SystemProcess.monotonicNanoseconds()
            guard now < deadline else { return true }
            let milliseconds = Int32(min((deadline - now) / 1_000_000 + 1, 60_000))
            try? waitSet.wait(timeoutMilliseconds: milliseconds) { _, _ in wake.drain() }
        }
    }
}
