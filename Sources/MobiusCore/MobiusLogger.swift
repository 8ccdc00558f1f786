/// Observes a loop's initiate and update calls, for logging and debugging.
///
/// Calls happen on the thread that runs the loop, around each call of the pure functions.
public protocol MobiusLogger {
    associatedtype Model
    associatedtype Event
    associatedtype Effect

    /// Called before `initiate` runs.
    @inlinable func willInitiate(model: Model)
    /// Called after `initiate` returned `first`.
    @inlinable func didInitiate(model: Model, first: First<Model, Effect>)
    /// Called before `update` runs for `event`.
    @inlinable func willUpdate(model: Model, event: Event)
    /// Called after `update` returned `next`.
    @inlinable func didUpdate(model: Model, event: Event, next: Next<Model, Effect>)
}

/// A type-erased `MobiusLogger`.
public struct AnyMobiusLogger<Model, Event, Effect>: MobiusLogger {
    @usableFromInline let willInitiateClosure: (Model) -> Void
    @usableFromInline let didInitiateClosure: (Model, First<Model, Effect>) -> Void
    @usableFromInline let willUpdateClosure: (Model, Event) -> Void
    @usableFromInline let didUpdateClosure: (Model, Event, Next<Model, Effect>) -> Void

    /// Wraps a logger of the same types.
    @inlinable public init<Base: MobiusLogger>(_ base: Base)
    where Base.Model == Model, Base.Event == Event, Base.Effect == Effect {
        willInitiateClosure = base.willInitiate
        didInitiateClosure = base.didInitiate
        willUpdateClosure = base.willUpdate
        didUpdateClosure = base.didUpdate
    }

    /// Calls the wrapped logger's `willInitiate(model:)`.
    @inlinable public func willInitiate(model: Model) { willInitiateClosure(model) }
    /// Calls the wrapped logger's `didInitiate(model:first:)`.
    @inlinable public func didInitiate(model: Model, first: First<Model, Effect>) { didInitiateClosure(model, first) }
    /// Calls the wrapped logger's `willUpdate(model:event:)`.
    @inlinable public func willUpdate(model: Model, event: Event) { willUpdateClosure(model, event) }
    /// Calls the wrapped logger's `didUpdate(model:event:next:)`.
    @inlinable public func didUpdate(model: Model, event: Event, next: Next<Model, Effect>) {
        didUpdateClosure(model, event, next)
    }
}

/// A logger that does nothing.
public struct NoopLogger<Model, Event, Effect>: MobiusLogger {
    /// Creates a no-op logger.
    @inlinable public init() {}

    /// Does nothing.
    @inlinable public func willInitiate(model: Model) {}
    /// Does nothing.
    @inlinable public func didInitiate(model: Model, first: First<Model, Effect>) {}
    /// Does nothing.
    @inlinable public func willUpdate(model: Model, event: Event) {}
    /// Does nothing.
    @inlinable public func didUpdate(model: Model, event: Event, next: Next<Model, Effect>) {}
}
