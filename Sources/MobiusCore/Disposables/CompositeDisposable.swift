/// Disposes a group of disposables together, in the order they were given, once.
public final class CompositeDisposable: Disposable, @unchecked Sendable {
    // @unchecked: the list is taken out under the mutex, so each member is disposed once.
    private let members: Locked<[any Disposable]?>

    /// Creates a composite of `disposables`.
    public init(disposables: [any Disposable]) {
        self.members = Locked(disposables)
    }

    /// Disposes every member, in order, on the first call; later calls do nothing.
    public func dispose() {
        let toDispose = members.withLock { slot -> [any Disposable] in
            defer { slot = nil }
            return slot ?? []
        }
        for disposable in toDispose {
            disposable.dispose()
        }
    }
}
