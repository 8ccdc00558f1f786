import Synchronization

/// A value behind a mutex, for state that is not `Sendable` (models, events, closures).
///
/// `Mutex<Value>` requires values it hands out to be provably disconnected; the library's state holds user closures
/// and values, so the mutex guards separately allocated storage instead and results cross it in an
/// `UncheckedSendable`. The storage is a pointer rather than a stored `var` so the hot path pays no dynamic
/// exclusivity check: the mutex already guarantees exclusive access.
@usableFromInline package final class Locked<Value>: @unchecked Sendable {
    // @unchecked: `storage` is only touched inside `mutex.withLock`.
    @usableFromInline let mutex = Mutex<Void>(())
    @usableFromInline let storage: UnsafeMutablePointer<Value>

    @inlinable package init(_ value: Value) {
        storage = .allocate(capacity: 1)
        storage.initialize(to: value)
    }

    deinit {
        storage.deinitialize(count: 1)
        storage.deallocate()
    }

    /// Runs `body` with exclusive access to the value.
    @inline(__always)
    @inlinable package func withLock<Result>(_ body: (inout Value) -> Result) -> Result {
        mutex.withLock { _ in UncheckedSendable(value: body(&storage.pointee)) }.value
    }
}
