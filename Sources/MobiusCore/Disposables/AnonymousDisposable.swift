/// A `Disposable` that runs a closure the first time it is disposed, and never again.
public final class AnonymousDisposable: Disposable, @unchecked Sendable {
    // @unchecked: the closure is taken out under the mutex, so it runs at most once whichever thread disposes.
    private let disposer: Locked<(() -> Void)?>

    /// Creates a disposable that calls `disposer` once, on the first `dispose()`.
    public init(disposer: @escaping () -> Void) {
        self.disposer = Locked(disposer)
    }

    /// Runs the disposer on the first call; later calls do nothing.
    public func dispose() {
        let action = disposer.withLock { slot -> (() -> Void)? in
            defer { slot = nil }
            return slot
        }
        action?()
    }
}
