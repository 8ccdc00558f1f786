import MobiusCore
import MobiusJSON

/// The app's update as a plugin (docs/protocol.md 2.5): `init` and `update`, or `updateBatch` for plugins that announce
/// `batch`, one request at a time, in event order, through the plugin's runner.
///
/// A batch holds the events of one segment of a pass (the loop splits a pass where it reads the model), at most
/// `maxBatch` of them. A result that does not fit the protocol (not an object, a `results` array of the wrong
/// length, `effects` not an array) is a protocol violation: the plugin is restarted and asked again, since update
/// is pure.
final class PluginUpdateDriver {
    private let runner: PluginRunner
    private let log: DaemonLog
    private let maxBatch: Int

    init(runner: PluginRunner, log: DaemonLog) {
        self.runner = runner
        self.log = log
        self.maxBatch = runner.spec.config.maxBatch
    }

    /// The loop's view of it.
    var externalUpdate: ExternalUpdate<JSONValue, JSONValue, JSONValue> {
        ExternalUpdate(
            initiate: { [self] model, done in initiate(model, done) },
            prepare: { [self] model, segments, done in prepare(model, segments, done) },
            trouble: { [runner] in
                guard runner.state != .running, let problem = runner.lastProblem else { return nil }
                let stderr = runner.stderrTail.last.map { "; its last stderr line: \($0)" } ?? ""
                return "update plugin \(runner.name) is \(runner.state.rawValue) (\(problem)\(stderr))"
            })
    }

    typealias Outcome = ExternalUpdate<JSONValue, JSONValue, JSONValue>.Outcome
    typealias Unavailable = ExternalUpdate<JSONValue, JSONValue, JSONValue>.Unavailable

    private func initiate(
        _ model: JSONValue, _ done: @escaping (Result<First<JSONValue, JSONValue>, Unavailable>) -> Void
    ) {
        call("init", Self.params(model: model), parse: Self.step) { [log, runner] outcome in
            switch outcome {
            case .success(.success(let step)):
                done(.success(First(model: step.model ?? model, effects: step.effects)))
            case .success(.failure(let rejection)):
                log.error(
                    "update plugin \(runner.name) rejected init: \(rejection.message); starting from the model as it is"
                )
                done(.success(First(model: model)))
            case .failure(let unavailable):
                done(.failure(unavailable))
            }
        }
    }

    private func prepare(
        _ model: JSONValue, _ segments: [[ArraySlice<UInt8>]],
        _ done: @escaping (Result<[Outcome], Unavailable>) -> Void
    ) {
        let outcomes = OutcomeBuffer()
        outcomes.items.reserveCapacity(segments.reduce(0) { $0 + $1.count })
        run(segments, from: Position(segment: 0, event: 0), model: model, outcomes: outcomes, done: done)
    }

    /// The outcomes gathered so far, shared by the requests' callbacks (appending, not copying, per request).
    private final class OutcomeBuffer {
        var items: [Outcome] = []
    }

    /// Where the next request starts: a segment, and an event in it.
    private struct Position {
        var segment: Int
        var event: Int
    }

    /// The bytes of a request line around its params (`{"jsonrpc":"2.0","id":N,"method":"updateBatch","params":`
    /// and `}`, with the longest id).
    static let requestOverhead = 80

    /// Sends the events from `start` on, one request at a time, each from the model the one before left. A request
    /// takes events of one segment only: at most `maxBatch` (one for a plugin without `batch`), and no more than fit
    /// in one line of the plugin's `maxLineBytes`. An event that does not fit even alone with the model is rejected
    /// without being sent: the plugin could not read the line. A batch the plugin died on `crashesPerEvent` times
    /// is sent again one event at a time (up to `singlyUntil`), so that only the event it dies on is rejected
    /// (`PluginCrashed`).
    private func run(
        _ segments: [[ArraySlice<UInt8>]], from start: Position, model: JSONValue, outcomes: OutcomeBuffer,
        singlyUntil: Position? = nil, done: @escaping (Result<[Outcome], Unavailable>) -> Void
    ) {
        let limit = runner.spec.config.maxLineBytes - Self.requestOverhead
        // Encoded once for every try below: an event too big to go with it is turned down by arithmetic alone, so a
        // run of them costs no encoding of a big model each.
        let modelText = model.encoded()
        var position = start
        var request: (params: [UInt8], count: Int)
        while true {
            guard position.segment < segments.count else {
                done(.success(outcomes.items))
                return
            }
            let events = segments[position.segment]
            guard position.event < events.count else {
                position = Position(segment: position.segment + 1, event: 0)
                continue
            }
            let singly = singlyUntil.map { position.segment == $0.segment && position.event < $0.event } ?? false
            if let fitting = Self.params(
                model: modelText, events: events[position.event...],
                batch: runner.handlesBatch, maxEvents: singly ? 1 : maxBatch, limit: limit)
            {
                request = fitting
                break
            }
            outcomes.items.append(
                .failure(
                    EventRejection(
                        "the event and the model do not fit in one line to the update plugin \(runner.name) "
                            + "(maxLineBytes \(runner.spec.config.maxLineBytes))")))
            position.event += 1
        }
        let count = request.count
        let end = Position(segment: position.segment, event: position.event + count)
        let next: (JSONValue, [Outcome]) -> Void = { [self] model, produced in
            outcomes.items.append(contentsOf: produced)
            run(segments, from: end, model: model, outcomes: outcomes, singlyUntil: singlyUntil, done: done)
        }
        let retrySingly = { [self, position] in
            run(segments, from: position, model: model, outcomes: outcomes, singlyUntil: end, done: done)
        }
        if runner.handlesBatch {
            call("updateBatch", request.params, parse: { Self.batch($0, count: count) }) { outcome in
                switch outcome {
                case .success(.success(let batch)):
                    next(batch.model ?? model, batch.outcomes)
                case .success(.failure(let rejection)) where rejection.code == .pluginCrashed && count > 1:
                    retrySingly()
                case .success(.failure(let rejection)):
                    // An error answer to the whole batch rejects each of its events with that message.
                    next(model, Array(repeating: .failure(rejection), count: count))
                case .failure(let unavailable):
                    done(.failure(unavailable))
                }
            }
        } else {
            call("update", request.params, parse: Self.step) { outcome in
                switch outcome {
                case .success(.success(let step)):
                    let result: Next<JSONValue, JSONValue> =
                        step.model.map { .next($0, effects: step.effects) } ?? .dispatchEffects(step.effects)
                    next(step.model ?? model, [.success(result)])
                case .success(.failure(let rejection)):
                    next(model, [.failure(rejection)])
                case .failure(let unavailable):
                    done(.failure(unavailable))
                }
            }
        }
    }

    /// One request; a result `parse` cannot read is a protocol violation and the request is asked again after
    /// the restart.
    private func call<Parsed>(
        _ method: String, _ params: [UInt8], parse: @escaping (JSONValue) -> Parsed?,
        done: @escaping (Result<Result<Parsed, EventRejection>, Unavailable>) -> Void
    ) {
        runner.call(method, params: params) { [self] outcome in
            switch outcome {
            case .success(let result):
                guard let parsed = parse(result) else {
                    runner.violation("a malformed \(method) result")
                    call(method, params, parse: parse, done: done)
                    return
                }
                done(.success(.success(parsed)))
            case .failure(.rejected(let message)):
                done(.success(.failure(EventRejection(message))))
            case .failure(.unavailable(let message)):
                done(.failure(Unavailable(message: message)))
            case .failure(.crashed(let message)):
                done(.success(.failure(EventRejection(message, code: .pluginCrashed))))
            }
        }
    }

    /// `init`'s params, `{"model":M}`.
    static func params(model: JSONValue) -> [UInt8] {
        var params = Array(#"{"model":"#.utf8)
        model.encode(into: &params)
        params.append(UInt8(ascii: "}"))
        return params
    }

    /// The params of one request for the first of `events`: `update`'s `{"model":M,"event":E}`, or with `batch`
    /// `updateBatch`'s `{"model":M,"events":[E,...]}` with up to `maxEvents` events, `M` the model's encoding and each
    /// event's text as it is. Takes only events that keep the params within `limit` bytes, and says how many it took;
    /// `nil` when not even the first fits. The sizes are counted before anything is copied.
    static func params(
        model: [UInt8], events: ArraySlice<ArraySlice<UInt8>>, batch: Bool, maxEvents: Int, limit: Int
    ) -> (params: [UInt8], count: Int)? {
        let opening = batch ? #","events":["# : #","event":"#
        let closing = batch ? "]}" : "}"
        var size = #"{"model":"#.utf8.count + model.count + opening.utf8.count + closing.utf8.count
        var count = 0
        for text in events.prefix(batch ? maxEvents : 1) {
            let added = text.count + (count > 0 ? 1 : 0)
            guard size + added <= limit else { break }
            size += added
            count += 1
        }
        guard count > 0 else { return nil }
        var params = Array(#"{"model":"#.utf8)
        params.reserveCapacity(size)
        params.append(contentsOf: model)
        params.append(contentsOf: opening.utf8)
        for (index, text) in events.prefix(count).enumerated() {
            if index > 0 { params.append(UInt8(ascii: ",")) }
            params.append(contentsOf: text)
        }
        params.append(contentsOf: closing.utf8)
        return (params, count)
    }

    /// The result of `init` or `update`: `{"model":M?,"effects":[...]?}`.
    struct Step {
        let model: JSONValue?
        let effects: [JSONValue]
    }

    static func step(_ result: JSONValue) -> Step? {
        guard case .object(let object) = result else { return nil }
        let effects: [JSONValue]
        switch object["effects"] {
        case nil: effects = []
        case .array(let list)?: effects = list
        default: return nil
        }
        return Step(model: object["model"], effects: effects)
    }

    /// The result of `updateBatch`: the model after the last event and one outcome per event. Each applied
    /// event's `Next` carries its effects; the last applied one also carries the batch's model (the loop keeps
    /// the last model a pass's events produced, so earlier ones need none).
    struct Batch {
        let model: JSONValue?
        let outcomes: [Outcome]
    }

    static func batch(_ result: JSONValue, count: Int) -> Batch? {
        guard case .object(let object) = result, case .array(let results)? = object["results"], results.count == count
        else { return nil }
        var outcomes: [Outcome] = []
        var lastApplied: Int?
        for (index, item) in results.enumerated() {
            guard case .object(let entry) = item else { return nil }
            if let error = entry["error"] {
                let message =
                    error["message"]?.stringValue ?? String(decoding: error.encoded().prefix(256), as: UTF8.self)
                outcomes.append(.failure(EventRejection(message)))
                continue
            }
            let effects: [JSONValue]
            switch entry["effects"] {
            case nil: effects = []
            case .array(let list)?: effects = list
            default: return nil
            }
            outcomes.append(.success(.dispatchEffects(effects)))
            lastApplied = index
        }
        if let model = object["model"], let lastApplied, case .success(let next) = outcomes[lastApplied] {
            outcomes[lastApplied] = .success(.next(model, effects: next.effects))
        }
        // A model with every event rejected contradicts "the next event sees the model as it was": ignored.
        return Batch(model: lastApplied == nil ? nil : object["model"], outcomes: outcomes)
    }
}
