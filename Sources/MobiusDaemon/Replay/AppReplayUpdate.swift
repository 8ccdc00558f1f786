import MobiusCore
import MobiusJSON

/// A `replay` side whose update is Swift: a built-in app, or the typed app of the program that runs `replay`. Each
/// event goes through what a pass does with it: decoded with the app's codec, updated, the changed model checked
/// against JSON's nesting limit, the effects encoded. A rejection is what its sender would have been answered.
final class AppReplayUpdate<Model, Event, Effect>: ReplayUpdate {
    let label: String
    private let app: DaemonApp<Model, Event, Effect>
    /// The live pass's update and depth check.
    private let rules: PassRules<Model, Event, Effect>
    private var state: Model
    private(set) var model: JSONValue
    private var events: ArraySlice<ReplayEvent> = []

    /// - Throws: `ReplayFailure` when the app cannot encode its starting model.
    init(app: DaemonApp<Model, Event, Effect>, label: String) throws(ReplayFailure) {
        self.app = app
        self.label = label
        rules = PassRules(app: app, epoch: "", version: MobiusDaemon.version, ephemeral: true)
        state = app.initialModel
        do {
            model = try app.codec.encodeModel(app.initialModel)
        } catch {
            throw ReplayFailure("\(label): cannot encode the starting model: \(error)")
        }
    }

    func ready() {}

    func reset(to model: JSONValue) throws(ReplayFailure) {
        do {
            state = try app.codec.decodeModel(model)
        } catch {
            throw ReplayFailure("\(label) cannot take the model: \(EventRejection.message(for: error))")
        }
        self.model = model
    }

    func initiate() throws(ReplayFailure) {
        guard let initiate = app.initiate else { return }
        let first = initiate(state)
        do {
            model = try app.codec.encodeModel(first.model)
        } catch {
            throw ReplayFailure("\(label): cannot encode the model initiate made: \(error)")
        }
        state = first.model
    }

    func begin(_ events: ArraySlice<ReplayEvent>, singly: Bool) {
        self.events = events
    }

    func finish() throws(ReplayFailure) -> [ReplayStep] {
        var steps: [ReplayStep] = []
        steps.reserveCapacity(events.count)
        for event in events {
            steps.append(ReplayStep(outcome: apply(event.json), model: model))
        }
        events = []
        return steps
    }

    func close() {}

    private func apply(_ json: JSONValue) -> ReplayStep.Outcome {
        let event: Event
        do {
            event = try app.codec.decodeEvent(json)
        } catch {
            return .rejected("the app rejected the event: \(EventRejection.message(for: error))")
        }
        let next: Next<Model, Effect>
        do {
            next = try rules.update(state, event)
        } catch {
            return .rejected(EventRejection.message(for: error))
        }
        if let changed = next.model {
            switch app.modelDepth {
            case .eachEvent:
                switch rules.encodedWithinDepth(changed) {
                case .success(let encoded): model = encoded
                case .failure(let problem): return .rejected("the event would make the model too deep: \(problem)")
                }
            case .boundedByApp:
                do {
                    model = try app.codec.encodeModel(changed)
                } catch {
                    return .rejected("the app cannot encode the model: \(error)")
                }
            }
            state = changed
        }
        return .applied(effects: next.effects.map(encode))
    }

    /// An effect's JSON; one that has none (the daemon logs it as not handled) is shown as a string saying why.
    private func encode(_ effect: Effect) -> JSONValue {
        do {
            return try app.codec.encodeEffect(effect)
        } catch {
            return .string("(an effect that cannot be encoded: \(error))")
        }
    }
}
