/// A type-erased `MobiusLogger`.
public struct AnyMobiusLogger<Model, Event, Effect>: MobiusLogger {
    let willInitiateClosure: (Model) -> Void
    let didInitiateClosure: (Model, First<Model, Effect>) -> Void
    let willUpdateClosure: (Model, Event) -> Void
    let didUpdateClosure: (Model, Event, Next<Model, Effect>) -> Void

    /// Wraps a logger of the same types.
    public init<Base: MobiusLogger>(_ base: Base)
    where Base.Model == Model, Base.Event == Event, Base.Effect == Effect {
        willInitiateClosure = base.willInitiate
        didInitiateClosure = base.didInitiate
        willUpdateClosure = base.willUpdate
        didUpdateClosure = base.didUpdate
    }

    /// Calls the wrapped logger's `willInitiate(model:)`.
    public func willInitiate(model: Model) { willInitiateClosure(model) }
    /// Calls the wrapped logger's `didInitiate(model:first:)`.
    public func didInitiate(model: Model, first: First<Model, Effect>) { didInitiateClosure(model, first) }
    /// Calls the wrapped logger's `willUpdate(model:event:)`.
    public func willUpdate(model: Model, event: Event) { willUpdateClosure(model, event) }
    /// Calls the wrapped logger's `didUpdate(model:event:next:)`.
    public func didUpdate(model: Model, event: Event, next: Next<Model, Effect>) {
        didUpdateClosure(model, event, next)
    }
}
