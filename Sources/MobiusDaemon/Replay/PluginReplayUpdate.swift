import MobiusCore
import MobiusJSON
import MobiusSystem

/// A `replay` side whose update is an update plugin, run as the daemon runs it: its own process, the handshake,
/// `updateBatch` when it announces `batch` (at most its `maxBatch` events a request), restarts after a crash, the
/// event it keeps dying on rejected alone (`PluginCrashed`). The plugin host runs on a reactor of its own, on a thread
/// of its own, so the other side and the reading of the journal go on while the plugin computes.
final class PluginReplayUpdate: ReplayUpdate {
    let label: String
    let runsElsewhere = true
    private(set) var model: JSONValue
    private let waker: ReactorWaker
    /// Touched only on the plugin's reactor thread.
    private let parts: UncheckedSendable<Parts>
    private let thread: SystemThread.Handle
    /// Whether the plugin takes batches (then the models inside a batch are not known), once it runs.
    private var batches: Bool?
    private let started = Answer<UncheckedSendable<Result<Bool, ReplayFailure>>>()
    private let answer = Answer<UncheckedSendable<Outcomes>>()
    private var askedSingly = false
    private var askedCount = 0
    private var closed = false

    private typealias Outcomes = Result<[PluginUpdateDriver.Outcome], PluginUpdateDriver.Unavailable>

    private struct Parts {
        let reactor: Reactor
        let host: PluginHost
        let driver: Driver
    }

    /// The plugin's update driver, made on the reactor thread once the plugin runs.
    private final class Driver {
        var value: PluginUpdateDriver?
    }

    /// Starts the plugin `spec`; `ready` waits for its handshake.
    ///
    /// - Parameter model: the app's starting model (the config's `model`).
    /// - Throws: `ReplayFailure` when no reactor or thread can be had for it.
    init(spec: PluginSpec, model: JSONValue, label: String, log: DaemonLog) throws(ReplayFailure) {
        self.label = label
        self.model = model
        let reactor: Reactor
        do {
            reactor = try Reactor()
        } catch {
            throw ReplayFailure("\(label): cannot start a reactor for it: \(error)")
        }
        waker = reactor.waker
        // Events the plugin sends of its own accord go nowhere: replay runs no loop.
        let noLoop = PluginPort(hasRoom: { true }, whenRoom: { $0() }, deliver: { _, _ in }, stateChanged: { _ in })
        let host = PluginHost(
            specs: [spec], updatePlugin: spec.name, backpressure: EdgeBackpressure(), loop: noLoop, reactor: reactor,
            log: log)
        reactor.atEndOfEachRound { host.flushAll() }
        let driver = Driver()
        parts = UncheckedSendable(value: Parts(reactor: reactor, host: host, driver: driver))
        // Started before the reactor's thread runs, which then alone touches the host.
        let started = self.started
        host.start { problems in
            let outcome: Result<Bool, ReplayFailure>
            if let runner = host.runner(named: spec.name), runner.state == .running, runner.handlesUpdate,
                problems.isEmpty
            {
                driver.value = PluginUpdateDriver(runner: runner, log: log)
                outcome = .success(runner.handlesBatch)
            } else {
                let runner = host.runner(named: spec.name)
                let why =
                    problems.first ?? runner?.lastProblem
                    ?? (runner?.state == .running ? "it did not answer \"update\": true" : "it did not start")
                let stderr = runner?.stderrTail.last.map { "; its last stderr line: \($0)" } ?? ""
                outcome = .failure(ReplayFailure("\(label) did not start: \(why)\(stderr)"))
            }
            started.put(UncheckedSendable(value: outcome))
        }
        let handed = UncheckedSendable(value: reactor)
        do {
            thread = try SystemThread.spawn(name: "mobiusd-replay", stackSize: 1 << 20, joinable: true) {
                try? handed.value.run()
            }
        } catch {
            throw ReplayFailure("\(label): cannot start a thread for it: \(error)")
        }
    }

    func ready() throws(ReplayFailure) {
        guard batches == nil else { return }
        switch started.take().value {
        case .success(let takesBatches): batches = takesBatches
        case .failure(let failure): throw failure
        }
    }

    func reset(to model: JSONValue) {
        self.model = model
    }

    func initiate() throws(ReplayFailure) {
        let done = Answer<UncheckedSendable<Result<First<JSONValue, JSONValue>, PluginUpdateDriver.Unavailable>>>()
        let (parts, model) = (self.parts, self.model)
        waker.post {
            parts.value.driver.value?.externalUpdate.initiate(model) { done.put(UncheckedSendable(value: $0)) }
        }
        switch done.take().value {
        case .success(let first): self.model = first.model
        case .failure(let unavailable): throw ReplayFailure("\(label): \(unavailable.message)")
        }
    }

    func begin(_ events: ArraySlice<ReplayEvent>, singly: Bool) {
        // One segment per event asks for each event alone: the driver never puts two segments in one request.
        let segments: [[ArraySlice<UInt8>]] = singly ? events.map { [$0.text] } : [events.map(\.text)]
        askedSingly = singly
        askedCount = events.count
        let (parts, model, answer) = (self.parts, self.model, self.answer)
        waker.post {
            parts.value.driver.value?.externalUpdate.prepare(model, segments) {
                answer.put(UncheckedSendable(value: $0))
            }
        }
    }

    func finish() throws(ReplayFailure) -> [ReplayStep] {
        let outcomes: [PluginUpdateDriver.Outcome]
        switch answer.take().value {
        case .success(let all): outcomes = all
        case .failure(let unavailable): throw ReplayFailure("\(label): \(unavailable.message)")
        }
        guard outcomes.count == askedCount else {
            throw ReplayFailure("\(label): \(outcomes.count) outcomes for \(askedCount) events")
        }
        // A batch's result carries the model after its last applied event only, on that event's `Next`; an applied
        // event without a model changed nothing when asked alone, and is not known inside a batch.
        let knowsEachModel = askedSingly || batches != true
        var known: JSONValue? = model
        var steps: [ReplayStep] = []
        steps.reserveCapacity(outcomes.count)
        for outcome in outcomes {
            switch outcome {
            case .success(let next):
                if let changed = next.model {
                    known = changed
                    model = changed
                } else if !knowsEachModel {
                    known = nil
                }
                steps.append(ReplayStep(outcome: .applied(effects: next.effects), model: known))
            case .failure(let rejection):
                let message =
                    rejection.code == .invalidEvent
                    ? rejection.message : "\(rejection.code.rawValue): \(rejection.message)"
                steps.append(ReplayStep(outcome: .rejected(message), model: known))
            }
        }
        if !steps.isEmpty { steps[steps.count - 1].model = model }
        return steps
    }

    /// Shuts the plugin down from any thread, as the daemon does (for `ReplayInterruption`): the host stops on its
    /// reactor's thread.
    var stop: ReplayInterruption.Stop {
        let (waker, parts) = (self.waker, self.parts)
        return { ended in waker.post { parts.value.host.stop { ended() } } }
    }

    /// Shuts the plugin down as the daemon does and waits for its thread.
    func close() {
        guard !closed else { return }
        closed = true
        let parts = self.parts
        waker.post { parts.value.host.stop { parts.value.reactor.stop() } }
        thread.join()
    }

    /// Where the reactor thread leaves a value for the thread that waits for it.
    private final class Answer<Value: Sendable>: @unchecked Sendable {
        // @unchecked: `value` is touched only while holding `condition`'s mutex.
        private let condition = ThreadCondition()
        private var value: Value?

        func put(_ value: Value) {
            condition.withLock { self.value = value }
            condition.broadcast()
        }

        /// Waits for the value and takes it.
        func take() -> Value {
            condition.withLock {
                while value == nil { _ = condition.wait() }
                defer { value = nil }
                return value!
            }
        }
    }
}
