import MobiusCore

extension Mobius {
    /// Starts configuring a loop without effects, for learning Mobius: `update` returns only the new model.
    public static func beginnerLoop<Model, Event>(
        update: @escaping (Model, Event) -> Model
    ) -> Builder<Model, Event, Never> {
        loop(update: { model, event in .next(update(model, event)) }, effectHandler: NoEffectHandler<Event>())
    }
}

/// The effect handler of a loop whose effect type is `Never`: it can never receive an effect.
public struct NoEffectHandler<Event>: Connectable {
    /// Creates the handler.
    public init() {}

    /// Returns a connection that ignores effects (a `Never` effect cannot exist) and has nothing to dispose.
    public func connect(_ consumer: @escaping Consumer<Event>) -> Connection<Never> {
        Connection(acceptClosure: { _ in }, disposeClosure: {})
    }
}
