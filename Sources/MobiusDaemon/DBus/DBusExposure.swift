import MobiusCore
import MobiusJSON
import MobiusSystem

/// The app's model as a D-Bus service (config `expose`; docs/dbus.md, "The model on D-Bus"), on the reactor thread:
/// it hands each committed state and each `Send` reply to the exposure's bus thread (`DBusExposureWorker`), takes
/// the `Send` calls that thread posts into the loop as client inputs, and reports `status`. Nothing here blocks: a
/// hand-off is one lock and, for the first of a burst, one eventfd write.
final class DBusExposure {
    let worker: DBusExposureWorker
    private let log: DaemonLog
    /// The model last handed over, for states whose model did not change.
    private var model: JSONValue = .null
    /// Released when the first attempt has settled.
    private let readiness: ReadinessHold
    private var started = false

    /// Wires the exposure to `loop`; its thread starts in `start()`.
    /// - Parameters:
    ///   - maxEventBytes: the longest event `Send` takes (`socket.maxLineBytes`).
    ///   - maxReplyBytes: the most model text one reply carries (`socket.maxOutputBytes`).
    ///   - readiness: held until the first attempt has settled: the name is owned (or queued for) and the object
    ///     served, or the bus could not be reached (it is then retried in the background).
    init<Model, Event, Effect>(
        config: DaemonConfig.Expose, loop: DaemonLoop<Model, Event, Effect>, epoch: String, maxEventBytes: Int,
        maxReplyBytes: Int, log: DaemonLog, waker: ReactorWaker, readiness: ReadinessGate
    ) throws(SystemError) {
        self.log = log
        let loopRef = UncheckedSendable(value: loop)
        let inbox = EventInbox<ClientInput>(
            kind: .client, capacity: DBusExposureWorker.maxCallsInFlight, policy: .dropNewest
        ) { waker.post { loopRef.value.inboxHasItems() } }
        let hold = readiness.hold("D-Bus expose \(config.name)")
        self.readiness = hold
        worker = try DBusExposureWorker(
            config: config, epoch: epoch, inbox: inbox, eventsAsText: loop.eventsAsText, maxEventBytes: maxEventBytes,
            maxReplyBytes: maxReplyBytes, log: log, settled: { hold.release() })
        loop.attach(clientInbox: inbox)
    }

    /// Starts the bus thread; it connects once the loop has started.
    func start() {
        do {
            try worker.start()
            started = true
        } catch {
            log.error("D-Bus expose \(worker.config.bus): cannot start its thread: \(error)")
            readiness.release()
        }
    }

    /// SIGTERM: new `Send` calls get `ShuttingDown`; those in the loop are still answered.
    func beginShutdown() {
        worker.mailbox.beginShutdown()
    }

    /// Tells the bus thread to answer what is left and close, and waits for it, at most `stopTimeout` seconds: the
    /// process ends when the reactor thread returns, and a call the thread had not answered by then would get
    /// `NoReply` from the bus instead of its answer. A thread stuck on a stopped bus is left behind.
    func stop() {
        worker.mailbox.stop()
        guard started else { return }
        if !worker.waitUntilEnded(timeoutNanoseconds: UInt64(Self.stopTimeout * 1e9)) {
            log.warning("D-Bus expose \(worker.config.bus): its thread did not finish within \(Self.stopTimeout) s")
        }
    }

    static let stopTimeout = 2.0

    /// `status` member `expose`.
    var status: JSONValue { worker.status.json }
}

extension DBusExposure: CommittedStateObserver {
    func committed(seq: UInt64, model: JSONValue?) {
        if let model { self.model = model }
        worker.mailbox.post(DBusExposureMailbox.Committed(seq: seq, model: self.model, modelChanged: model != nil))
    }
}

extension DBusExposure: ForeignReplyRecipient {
    func deliver(_ reply: LoopReply, to id: ConnectionID) {
        guard let number = ForeignConnectionID.number(of: id) else { return }
        worker.mailbox.post(reply, forCall: number)
    }
}
