import MobiusCore
import MobiusJSON
import MobiusSystem

/// The daemon's D-Bus side (docs/protocol.md 3): one `DBusBusWorker` per bus that a source or an effect names, their
/// sources' `status`, and the moment every source's first attempt has settled (for `READY=1`). Lives on the
/// reactor thread.
final class DBusSources {
    private var workers: [DBusBusWorker] = []
    private let log: DaemonLog
    private let waker: ReactorWaker
    /// Connects a new worker's inbox to the loop.
    private let attach: (DBusBusWorker) -> Void
    /// Queues an event at once, on the reactor thread: failures found before anything is sent.
    let deliverNow: (JSONValue) -> Void
    private var unsettled = 0
    private var settledWaiters: [() -> Void] = []
    /// Buses that effects alone may add, beyond the sources' (each is a thread and a connection).
    static let maxEffectBuses = 8
    private var effectBuses = 0

    /// Asks the reactor to drain the inboxes (any thread).
    private let wakeLoop: @Sendable () -> Void

    /// Groups `sources` by bus; threads start in `start()`, and their events go to `loop`.
    /// - Parameter wakeLoop: asks the reactor to take the inboxes' items (called from bus threads).
    init<Model, Event, Effect>(
        sources: [DaemonConfig.DBusSource], loop: DaemonLoop<Model, Event, Effect>, stats: DaemonStats,
        log: DaemonLog, waker: ReactorWaker, wakeLoop: @escaping @Sendable () -> Void
    ) throws(SystemError) {
        self.log = log
        self.waker = waker
        self.wakeLoop = wakeLoop
        attach = Self.attachment(to: loop, stats: stats, log: log)
        deliverNow = Self.delivery(to: loop, stats: stats, log: log)
        var buses: [String] = []
        for source in sources where !buses.contains(source.bus) { buses.append(source.bus) }
        for bus in buses {
            workers.append(try makeWorker(bus: bus, sources: sources.filter { $0.bus == bus }))
        }
        unsettled = workers.count
    }

    private func makeWorker(bus: String, sources: [DaemonConfig.DBusSource]) throws(SystemError) -> DBusBusWorker {
        let waker = self.waker
        let counted = !sources.isEmpty
        let this = UncheckedSendable(value: self)
        return try DBusBusWorker(
            bus: bus, sources: sources, log: log,
            wakeLoop: wakeLoop, settled: { if counted { waker.post { this.value.oneSettled() } } })
    }

    /// Starts every source's bus thread. An unreachable bus is retried in the background; start-up never waits.
    func start() {
        for worker in workers {
            attach(worker)
            do {
                try worker.start()
            } catch {
                log.error("D-Bus \(worker.bus): cannot start its thread: \(error)")
                oneSettled()
            }
        }
        if workers.isEmpty { oneSettled() }
    }

    private func oneSettled() {
        unsettled -= 1
        guard unsettled <= 0 else { return }
        let waiting = settledWaiters
        settledWaiters.removeAll()
        for body in waiting { body() }
    }

    /// Whether every source's first attempt has finished: connected with its matches in and its initial read
    /// done, or failed (then it keeps retrying in the background).
    var firstAttemptsSettled: Bool { unsettled <= 0 }

    /// Calls `body` on the reactor thread once every source's first attempt has settled (at once if it has):
    /// `READY=1` waits for reachable buses' matches and reads, never for an unreachable bus.
    func whenFirstAttemptsSettled(_ body: @escaping () -> Void) {
        if firstAttemptsSettled { body() } else { settledWaiters.append(body) }
    }

    /// Holds `READY=1` (docs/protocol.md 4) until every source's first attempt has settled: reachable buses' matches
    /// are in and their initial reads done; an unreachable bus releases it after its first failed attempt.
    func holdReadiness(_ gate: ReadinessGate) {
        guard !workers.isEmpty else { return }
        let hold = gate.hold("D-Bus sources")
        whenFirstAttemptsSettled { hold.release() }
    }

    /// The worker for `bus`, started on first use by an effect; `nil` past `maxEffectBuses` or when its thread
    /// cannot start.
    func worker(for bus: String) -> DBusBusWorker? {
        if let worker = workers.first(where: { $0.bus == bus }) { return worker }
        guard effectBuses < Self.maxEffectBuses else { return nil }
        do {
            let worker = try makeWorker(bus: bus, sources: [])
            attach(worker)
            try worker.start()
            effectBuses += 1
            workers.append(worker)
            return worker
        } catch {
            log.limited("dbus bus", .error, "D-Bus \(bus): cannot start its thread: \(error)")
            return nil
        }
    }

    /// Stops the worker of `bus` (if any) and, when `sources` is not empty, starts a new one for them (reload).
    func replaceWorker(bus: String, sources: [DaemonConfig.DBusSource]) {
        if let index = workers.firstIndex(where: { $0.bus == bus }) {
            workers.remove(at: index).stop()
        }
        guard !sources.isEmpty else { return }
        do {
            let worker = try makeWorker(bus: bus, sources: sources)
            attach(worker)
            try worker.start()
            workers.append(worker)
        } catch {
            log.error("D-Bus \(bus): cannot start its thread: \(error)")
        }
    }

    /// `status` member `dbus`: each source by name.
    var status: JSONValue {
        var object = JSONObject()
        for worker in workers {
            for status in worker.statuses { object[status.name] = status.json }
        }
        return .object(object)
    }

    /// Tells every bus thread to end (at shutdown); does not wait for them.
    func stop() {
        for worker in workers { worker.stop() }
    }
}
