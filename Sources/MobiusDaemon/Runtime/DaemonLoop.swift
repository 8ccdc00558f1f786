import MobiusCore
import MobiusJSON
import MobiusSystem
import Synchronization

/// The loop thread: owns the model and works in passes.
///
/// A pass takes every queued input, applies `update` to each event in order (answering requests in between, so a
/// `model` after an event sees it), then hands the pass's replies to the I/O thread, publishes the newest model
/// once, and finally dispatches the pass's effects. The journal (durability issue) slots in between the updates
/// and the replies: nothing a pass produces leaves the loop before that point.
///
/// Relation to MobiusCore: the update, initiate, `Next`, `First` and effect router are the library's; the pass
/// machinery is the daemon's own, because batching (one publication and one future fsync per pass) and
/// durability need control over when replies, models and effects go out.
final class DaemonLoop<Model, Event, Effect>: @unchecked Sendable {
    // @unchecked: everything mutable below is touched only by the loop thread (inside `run`), except `inbound`,
    // `outbound` and `stats`, which are thread-safe.
    // The loop-thread state below skips runtime exclusivity checks: only `run` and the methods it calls touch it.

    let app: DaemonApp<Model, Event, Effect>
    let inbound: InboundQueue<LoopInput<Event>>
    let outbound: OutboundQueue
    let stats: DaemonStats
    let log: DaemonLog
    let epoch: String
    let version: String

    @exclusivity(unchecked) private var model: Model
    @exclusivity(unchecked) private var seq: UInt64 = 0
    /// The JSON form of `model`, computed at most once per model.
    @exclusivity(unchecked) private var modelJSON: JSONValue?
    @exclusivity(unchecked) private var subscriptions = SubscriptionHub()
    @exclusivity(unchecked) private var monitors: Set<ConnectionID> = []
    private var effectRouter: EffectDispatcher<Model, Event, Effect>?
    private var loopThread: UInt = 0
    private let subscriberCount = Atomic<Int>(0)

    init(
        app: DaemonApp<Model, Event, Effect>, inboundCapacity: Int, outbound: OutboundQueue, stats: DaemonStats,
        log: DaemonLog, epoch: String, version: String
    ) {
        self.app = app
        self.inbound = InboundQueue(capacity: inboundCapacity)
        self.outbound = outbound
        self.stats = stats
        self.log = log
        self.epoch = epoch
        self.version = version
        self.model = app.initialModel
    }

    /// Subscriptions open now (for `status`, read from any thread).
    var subscribers: Int { subscriberCount.load(ordering: .relaxed) }

    /// The loop thread's body: initiate, then passes until `.stop`.
    func run() {
        loopThread = SystemThread.currentID
        let inbound = self.inbound
        let loopThread = self.loopThread
        let dispatcher = EffectDispatcher(app: app, log: log, stats: stats) { event in
            inbound.push(.event(event, nil), overCapacity: SystemThread.currentID == loopThread)
        }
        effectRouter = dispatcher
        var effects: [Effect] = []
        if let initiate = app.initiate {
            let first = initiate(model)
            model = first.model
            effects = first.effects
        }
        dispatcher.dispatch(effects, traceTo: [], outbound: outbound)
        effects.removeAll()

        var batch: [LoopInput<Event>] = []
        var output: [LoopOutput] = []
        var stopping = false
        var fanOut = 0
        while !stopping {
            // After a large fan-out the I/O thread is busy writing to subscribers for a while: watching for input
            // then only takes a core from it, and the next request cannot come before the fan-out is written.
            let producerWasPaused = inbound.takeAll(into: &batch, watch: fanOut < 64)
            fanOut = 0
            var modelChanged = false
            for input in batch {
                switch input {
                case .event(let event, let ticket):
                    apply(event, ticket: ticket, effects: &effects, modelChanged: &modelChanged, output: &output)
                case .eventText(let text, let ticket):
                    switch decode(text) {
                    case .success(let event):
                        apply(
                            event, ticket: ticket, effects: &effects, modelChanged: &modelChanged, output: &output)
                    case .failure(let rejection):
                        stats.countRejected()
                        let reply: LoopReply =
                            ticket.mode == .off
                            ? .none : .line(JSONLine.error(rejection.code, rejection.message, line: ticket.line))
                        output.append(.reply(ticket.connection, reply))
                    }
                case .request(let request, let ticket):
                    output.append(.reply(ticket.connection, answer(request, ticket: ticket)))
                case .rejected:
                    stats.countRejected()
                case .disconnected(let connection):
                    if subscriptions.remove(connection) { subscriberCount.subtract(1, ordering: .relaxed) }
                    monitors.remove(connection)
                case .stop:
                    stopping = true
                }
            }
            // The journal writes and fdatasyncs the pass here, before any reply, model or effect leaves the loop.
            if modelChanged {
                fanOut = publish(into: &output)
            }
            if producerWasPaused {
                output.append(.inboundSpace)
            }
            output.append(.release(ConsumedInputs(batch)))
            batch = []
            outbound.send(output)
            output.removeAll(keepingCapacity: true)
            dispatcher.dispatch(effects, traceTo: monitors, outbound: outbound)
            effects.removeAll(keepingCapacity: true)
        }
        dispatcher.dispose()
        inbound.close()
        outbound.send(.stopped)
    }

    private func apply(
        _ event: Event, ticket: ReplyTicket?, effects: inout [Effect], modelChanged: inout Bool,
        output: inout [LoopOutput]
    ) {
        let next = app.update.update(model: model, event: event)
        seq += 1
        stats.accepted.add(1, ordering: .relaxed)
        if let newModel = next.model {
            model = newModel
            modelJSON = nil
            modelChanged = true
        }
        effects.append(contentsOf: next.effects)
        if let ticket {
            output.append(.reply(ticket.connection, ticket.mode == .on ? .ack(seq) : .none))
        }
        if !monitors.isEmpty {
            let line = JSONLine.object([
                ("trace", "event"), ("seq", .number(JSONNumber(seq))), ("event", app.codec.encodeEvent(event)),
            ])
            for monitor in monitors { output.append(.trace(monitor, line)) }
        }
    }

    /// Why a client's event line was not applied.
    struct Rejection: Error {
        let code: ErrorCode
        let message: String
    }

    /// Parses a client's event line and decodes it with the app's codec.
    private func decode(_ text: [UInt8]) -> Result<Event, Rejection> {
        let value: JSONValue
        do {
            value = try JSONWire.parse(text[...])
        } catch {
            return .failure(Rejection(code: .invalidJSON, message: "invalid JSON: \(error)"))
        }
        do {
            return .success(try app.codec.decodeEvent(value))
        } catch {
            return .failure(Rejection(code: .invalidEvent, message: "the app rejected the event: \(error)"))
        }
    }

    private var currentModelJSON: JSONValue {
        if let modelJSON { return modelJSON }
        let encoded = app.codec.encodeModel(model)
        modelJSON = encoded
        return encoded
    }

    private func answer(_ request: LoopRequest, ticket: ReplyTicket) -> LoopReply {
        let seqValue = JSONValue.number(JSONNumber(seq))
        switch request {
        case .model(let path):
            let value = path.map { $0.value(in: currentModelJSON) ?? .null } ?? currentModelJSON
            return .line(JSONLine.object([("ok", true), ("seq", seqValue), ("model", value)]))
        case .subscribe(let path):
            let value = path.map { $0.value(in: currentModelJSON) ?? .null } ?? currentModelJSON
            if subscriptions.add(ticket.connection, path: path, seq: seq, value: value) {
                subscriberCount.add(1, ordering: .relaxed)
            }
            return .line(
                JSONLine.object([("ok", true), ("seq", seqValue), ("epoch", .string(epoch)), ("model", value)]))
        case .ping:
            return .line(JSONLine.object([("ok", true), ("seq", seqValue)]))
        case .hello:
            return .line(
                JSONLine.object([
                    ("ok", true), ("protocol", 1), ("daemon", "mobiusd"), ("version", .string(version)),
                    ("app", .string(app.name)), ("epoch", .string(epoch)), ("seq", seqValue),
                ]))
        case .status:
            return .line(statusLine())
        case .monitor:
            monitors.insert(ticket.connection)
            return .line(JSONLine.object([("ok", true), ("seq", seqValue)]))
        }
    }

    /// Publishes the current model to subscriptions and monitors; returns how many connections get a line.
    @discardableResult
    private func publish(into output: inout [LoopOutput]) -> Int {
        guard !subscriptions.isEmpty || !monitors.isEmpty else { return 0 }
        var receivers = monitors.count
        let seqValue = JSONValue.number(JSONNumber(seq))
        let modelValue = currentModelJSON
        subscriptions.publish(seq: seq, model: modelValue) { value, connections in
            output.append(.model(connections, JSONLine.object([("seq", seqValue), ("model", value)])))
            receivers += connections.count
        }
        if !monitors.isEmpty {
            let line = JSONLine.object([("trace", "model"), ("seq", seqValue), ("model", modelValue)])
            for monitor in monitors { output.append(.trace(monitor, line)) }
        }
        return receivers
    }

    private func statusLine() -> [UInt8] {
        let uptime = Double(SystemProcess.monotonicNanoseconds() - stats.startedAt) / 1e9
        return JSONLine.object([
            ("ok", true),
            ("app", .string(app.name)),
            ("seq", .number(JSONNumber(seq))),
            ("epoch", .string(epoch)),
            ("version", .string(version)),
            ("uptime", .number(JSONNumber((uptime * 1000).rounded() / 1000) ?? JSONNumber(0))),
            ("connections", .number(JSONNumber(stats.connections.load(ordering: .relaxed)))),
            ("subscribers", .number(JSONNumber(subscribers))),
            ("monitors", .number(JSONNumber(monitors.count))),
            (
                "events",
                .object([
                    "accepted": .number(JSONNumber(stats.accepted.load(ordering: .relaxed))),
                    "rejected": .number(JSONNumber(stats.rejected.load(ordering: .relaxed))),
                ])
            ),
            ("effects", .object(["unhandled": .number(JSONNumber(stats.unhandledEffects.load(ordering: .relaxed)))])),
            (
                "queues",
                .object([
                    "inbound": .number(JSONNumber(inbound.depth)),
                    "inboundCapacity": .number(JSONNumber(inbound.capacity)),
                ])
            ),
            ("plugins", .object([:])),
            ("dbus", .object([:])),
            ("rssBytes", .number(JSONNumber(SystemProcess.residentBytes()))),
        ])
    }
}
