/// The result of one call to an update function: an optional new model and the effects to run, in order.
///
/// `Next` is a value: creating one does nothing. The loop publishes the model (when there is one) and then
/// hands the effects to the effect handler in array order.
public struct Next<Model, Effect> {
    // Kept @inlinable on init, next and apply(to:): every MobiusBench row (each update returns one).
    /// The new model, or `nil` when the model did not change.
    public let model: Model?
    /// The effects to dispatch, in the order the update function listed them.
    public let effects: [Effect]

    @inlinable
    init(model: Model?, effects: [Effect]) {
        self.model = model
        self.effects = effects
    }

    /// Whether this `Next` carries any effects.
    public var hasEffects: Bool { !effects.isEmpty }

    /// A new model and the effects that go with it (possibly none).
    @inlinable
    public static func next(_ model: Model, effects: [Effect] = []) -> Next {
        Next(model: model, effects: effects)
    }

    /// No model change, only effects.
    public static func dispatchEffects(_ effects: [Effect]) -> Next {
        Next(model: nil, effects: effects)
    }

    /// Neither a model change nor effects.
    public static var noChange: Next { Next(model: nil, effects: []) }

    /// Applies this `Next` to `model` the way every Mobius loop does: a new model replaces it, and `effects` follow
    /// in order. Returns whether the model changed. `MobiusLoop` and mobiusd's loop both apply updates through here.
    @inlinable
    public func apply(to model: inout Model) -> Bool {
        guard let newModel = self.model else { return false }
        model = newModel
        return true
    }
}

extension Next: Sendable where Model: Sendable, Effect: Sendable {}
extension Next: Equatable where Model: Equatable, Effect: Equatable {}

extension Next: CustomDebugStringConvertible {
    /// The model (or `nil`) and the effects, e.g. `Next(model: 3, effects: [])`.
    public var debugDescription: String {
        let modelText = model.map { String(reflecting: $0) } ?? "nil"
        return "Next(model: \(modelText), effects: \(effects))"
    }
}
