/// A wrapper around a pure update function `(Model, Event) -> Next<Model, Effect>`.
///
/// Anywhere an `Update` is accepted, a plain function of that shape is accepted too.
public struct Update<Model, Event, Effect> {
    // Kept @inlinable: every MobiusBench row (each event calls update).
    @usableFromInline let updateClosure: (Model, Event) -> Next<Model, Effect>

    /// Wraps an update function.
    public init(_ update: @escaping (Model, Event) -> Next<Model, Effect>) {
        self.updateClosure = update
    }

    /// Invokes the update function.
    @inlinable
    public func update(model: Model, event: Event) -> Next<Model, Effect> {
        updateClosure(model, event)
    }

    /// Invokes the update function.
    @inlinable
    public func callAsFunction(model: Model, event: Event) -> Next<Model, Effect> {
        updateClosure(model, event)
    }
}
