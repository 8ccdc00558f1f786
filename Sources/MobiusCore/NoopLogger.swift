/// A logger that does nothing.
public struct NoopLogger<Model, Event, Effect>: MobiusLogger {
    /// Creates a no-op logger.
    public init() {}

    /// Does nothing.
    public func willInitiate(model: Model) {}
    /// Does nothing.
    public func didInitiate(model: Model, first: First<Model, Effect>) {}
    /// Does nothing.
    public func willUpdate(model: Model, event: Event) {}
    /// Does nothing.
    public func didUpdate(model: Model, event: Event, next: Next<Model, Effect>) {}
}
