/// Observes a loop's initiate and update calls, for logging and debugging.
///
/// Calls happen on the thread that runs the loop, around each call of the pure functions.
public protocol MobiusLogger {
    associatedtype Model
    associatedtype Event
    associatedtype Effect

    /// Called before `initiate` runs.
    func willInitiate(model: Model)
    /// Called after `initiate` returned `first`.
    func didInitiate(model: Model, first: First<Model, Effect>)
    /// Called before `update` runs for `event`.
    func willUpdate(model: Model, event: Event)
    /// Called after `update` returned `next`.
    func didUpdate(model: Model, event: Event, next: Next<Model, Effect>)
}

/// A type-erased `MobiusLogger`.
public struct AnyMobiusLogger<Model, Event, Effect>: MobiusLogger {
    private let willInitiateClosure: (Model) -> Void
    private let didInitiateClosure: (Model, First<Model, Effect>) -> Void
    private let willUpdateClosure: (Model, Event) -> Void
    private let didUpdateClosure: (Model, Event, Next<Model, Effect>) -> Void

    /// Wraps a logger of the same types.
    public init<Base: MobiusLogger>(_ base: Base)
    where Base.Model == Model, Base.Event == Event, Base.Effect == Effect {
        willInitiateClosure = base.willInitiate
        didInitiateClosure = base.didInitiate
        willUpdateClosure = base.willUpdate
        didUpdateClosure = base.didUpdate
    }

    public func willInitiate(model: Model) { willInitiateClosure(model) }
    public func didInitiate(model: Model, first: First<Model, Effect>) { didInitiateClosure(model, first) }
    public func willUpdate(model: Model, event: Event) { willUpdateClosure(model, event) }
    public func didUpdate(model: Model, event: Event, next: Next<Model, Effect>) {
        didUpdateClosure(model, event, next)
    }
}

/// A logger that does nothing.
public struct NoopLogger<Model, Event, Effect>: MobiusLogger {
    /// Creates a no-op logger.
    public init() {}

    public func willInitiate(model: Model) {}
    public func didInitiate(model: Model, first: First<Model, Effect>) {}
    public func willUpdate(model: Model, event: Event) {}
    public func didUpdate(model: Model, event: Event, next: Next<Model, Effect>) {}
}
