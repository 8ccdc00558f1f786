/// A `Disposable` with nothing to release.
public final class EmptyDisposable: Disposable, Sendable {
    /// Creates an empty disposable.
    public init() {}

    public func dispose() {}
}
