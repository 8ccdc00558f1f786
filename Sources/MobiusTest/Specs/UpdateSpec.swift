import MobiusCore

/// A given/when/then test of an update function.
///
/// ```swift
/// UpdateSpec(update)
///     .given(Model(count: 0))
///     .when(.increment, .increment)
///     .then(assertThatNext(hasModel(Model(count: 2)), hasNoEffects()))
/// ```
///
/// Deliberately not `Sendable`: a spec holds the update closure and is used within one test.
public struct UpdateSpec<Model, Event, Effect> {
    /// Checks the outcome of the `when` step; build one with `assertThatNext(...)` or write your own.
    public typealias Assert = (Result) -> Void

    private let update: Update<Model, Event, Effect>

    /// Creates a spec for `update`.
    public init(_ update: Update<Model, Event, Effect>) {
        self.update = update
    }

    /// Creates a spec for an update function.
    public init(_ update: @escaping (Model, Event) -> Next<Model, Effect>) {
        self.init(Update(update))
    }

    /// Sets the model the events are applied to.
    public func given(_ model: Model) -> When {
        When(update: update, model: model)
    }

    /// The spec with its starting model; `when` supplies the events.
    public struct When {
        let update: Update<Model, Event, Effect>
        let model: Model

        /// Applies `event`, then each of `more`, in order; each event sees the model the previous one produced.
        public func when(_ event: Event, _ more: Event...) -> Then {
            var model = self.model
            var next = update.update(model: model, event: event)
            for event in more {
                model = next.model ?? model
                next = update.update(model: model, event: event)
            }
            return Then(result: Result(model: next.model ?? model, lastNext: next))
        }
    }

    /// The spec after its events ran; `then` checks the outcome.
    public struct Then {
        let result: Result

        /// Runs `assert` on the outcome.
        public func then(_ assert: Assert) {
            assert(result)
        }
    }

    /// The outcome of the `when` step.
    public struct Result {
        /// The model after all events: the last model any of them produced, or the `given` model if none did.
        public let model: Model
        /// What the update function returned for the last event.
        public let lastNext: Next<Model, Effect>
    }
}
