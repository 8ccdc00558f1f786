import Synchronization

/// The handle returned by `Connectable.connect`: accepts input values until disposed.
public final class Connection<Value>: Disposable, @unchecked Sendable {
    // Kept @inlinable on init and accept: MobiusBench "roundtrip" and "roundtrip-mirror" rows.
    // @unchecked: the accept closure is whatever the connectable provides; the connectable decides its thread
    // rules. Disposal itself is guarded by an atomic flag so the dispose closure runs once.
    @usableFromInline let acceptClosure: (Value) -> Void
    @usableFromInline let disposeClosure: () -> Void
    @usableFromInline let disposed = Atomic<Bool>(false)

    /// Creates a connection from an accept function and a dispose function.
    @inlinable public init(acceptClosure: @escaping (Value) -> Void, disposeClosure: @escaping () -> Void) {
        self.acceptClosure = acceptClosure
        self.disposeClosure = disposeClosure
    }

    /// Hands a value to the connection. Values accepted after `dispose()` are dropped.
    @inlinable public func accept(_ value: Value) {
        guard !disposed.load(ordering: .acquiring) else { return }
        acceptClosure(value)
    }

    /// Closes the connection. Idempotent.
    public func dispose() {
        guard disposed.compareExchange(expected: false, desired: true, ordering: .acquiringAndReleasing).exchanged
        else { return }
        disposeClosure()
    }
}
