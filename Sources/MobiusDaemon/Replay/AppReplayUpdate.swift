import MobiusCore
import MobiusJSON

/// A `replay` side whose update is Swift: a built-in app, or the typed app of the program that runs `replay`. Each
/// event goes through what a pass does with it: decoded with the app's codec, updated, the changed model checked
/// against JSON's nesting limit, the effects encoded. A rejection is what its sender would have been answered.
///
/// Not generic itself: the app's types stay inside the closures `init` makes, which the compiler specializes where
/// the app's types are known (a generic class's methods, reached through the protocol, would run unspecialized and
/// look up the types' metadata for every event).
final class AppReplayUpdate: ReplayUpdate {
    let label: String
    let runsElsewhere = false
    private(set) var model: JSONValue
    private var steps: [ReplayStep] = []
    /// Applies one event to the app's model; gives its outcome and the model's JSON when it changed.
    private let apply: (JSONValue) -> (ReplayStep.Outcome, JSONValue?)
    private let take: (JSONValue) throws -> Void
    private let initiateModel: () throws -> JSONValue?

    /// - Throws: `ReplayFailure` when the app cannot encode its starting model.
    init<Model, Event, Effect>(app: DaemonApp<Model, Event, Effect>, label: String) throws(ReplayFailure) {
        self.label = label
        let machine = Machine(app)
        do {
            model = try app.codec.encodeModel(app.initialModel)
        } catch {
            throw ReplayFailure("\(label): cannot encode the starting model: \(error)")
        }
        apply = machine.apply
        take = machine.take
        initiateModel = machine.initiate
    }

    func ready() {}

    func reset(to model: JSONValue) throws(ReplayFailure) {
        do {
            try take(model)
        } catch {
            throw ReplayFailure("\(label) cannot take the model: \(EventRejection.message(for: error))")
        }
        self.model = model
    }

    func initiate() throws(ReplayFailure) {
        do {
            if let first = try initiateModel() { model = first }
        } catch {
            throw ReplayFailure("\(label): cannot encode the model initiate made: \(error)")
        }
    }

    func begin(_ events: ArraySlice<ReplayEvent>, singly: Bool) {
        steps = []
        steps.reserveCapacity(events.count)
        for event in events {
            let (outcome, changed) = apply(event.json)
            if let changed { model = changed }
            steps.append(ReplayStep(outcome: outcome, model: model))
        }
    }

    func finish() -> [ReplayStep] {
        defer { steps = [] }
        return steps
    }

    func close() {}

    /// The app's model and the live pass's rules, in the app's own types.
    private final class Machine<Model, Event, Effect> {
        private let app: DaemonApp<Model, Event, Effect>
        private let rules: PassRules<Model, Event, Effect>
        private var state: Model

        init(_ app: DaemonApp<Model, Event, Effect>) {
            self.app = app
            rules = PassRules(app: app, epoch: "", version: MobiusDaemon.version, ephemeral: true)
            state = app.initialModel
        }

        func take(_ model: JSONValue) throws {
            state = try app.codec.decodeModel(model)
        }

        /// The model's JSON after the app's initiate, or `nil` when it has none.
        func initiate() throws -> JSONValue? {
            guard let initiate = app.initiate else { return nil }
            let first = initiate(state)
            let encoded = try app.codec.encodeModel(first.model)
            state = first.model
            return encoded
        }

        func apply(_ json: JSONValue) -> (ReplayStep.Outcome, JSONValue?) {
            let event: Event
            do {
                event = try app.codec.decodeEvent(json)
            } catch {
                return (.rejected("the app rejected the event: \(EventRejection.message(for: error))"), nil)
            }
            let next: Next<Model, Effect>
            do {
                next = try rules.update(state, event)
            } catch {
                return (.rejected(EventRejection.message(for: error)), nil)
            }
            var encoded: JSONValue?
            if let changed = next.model {
                switch app.modelDepth {
                case .eachEvent:
                    switch rules.encodedWithinDepth(changed) {
                    case .success(let json): encoded = json
                    case .failure(let problem):
                        return (.rejected("the event would make the model too deep: \(problem)"), nil)
                    }
                case .boundedByApp:
                    do {
                        encoded = try app.codec.encodeModel(changed)
                    } catch {
                        return (.rejected("the app cannot encode the model: \(error)"), nil)
                    }
                }
                state = changed
            }
            return (.applied(effects: next.effects.map(encode)), encoded)
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
}
