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
