/// A `Disposable` with nothing to release.
public final class EmptyDisposable: Disposable, Sendable {
    /// Creates an empty disposable.
    public init() {}

    /// Does nothing.
    public func dispose() {}
}
