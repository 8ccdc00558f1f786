/// The result of an `Initiate` function: the model a loop starts from and the effects to run at start.
public struct First<Model, Effect> {
    /// The model the loop starts from.
    public let model: Model
    /// Effects dispatched when the loop starts, in order.
    public let effects: [Effect]

    /// Creates a `First` with a model and optional start-up effects.
    public init(model: Model, effects: [Effect] = []) {
        self.model = model
        self.effects = effects
    }

    /// Whether this `First` carries any effects.
    public var hasEffects: Bool { !effects.isEmpty }

    /// Starts `model` from this `First` the way every Mobius loop does, and gives the effects to dispatch first, in
    /// order. `MobiusController` and mobiusd's loop both start through here.
    public func start(_ model: inout Model) -> [Effect] {
        model = self.model
        return effects
    }
}

extension First: Sendable where Model: Sendable, Effect: Sendable {}
extension First: Equatable where Model: Equatable, Effect: Equatable {}

/// A function that normalises the starting model of a loop and may issue start-up effects.
public typealias Initiate<Model, Effect> = (Model) -> First<Model, Effect>
