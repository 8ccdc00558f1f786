import Glibc

/// Synchronization's `Mutex` API over a pthread mutex, for ThreadSanitizer builds (the `TSan` trait).
///
/// TSan intercepts `pthread_mutex_lock` and `pthread_mutex_unlock`, so it orders the critical sections of one lock;
/// it cannot see the futex under `Mutex`, and reports races between critical sections that cannot overlap.
public struct PthreadMutex<Value>: ~Copyable, @unchecked Sendable {
    // @unchecked: `value` is only touched while `lock` is held.
    private let lock: UnsafeMutablePointer<pthread_mutex_t>
    private let value: UnsafeMutablePointer<Value>

    /// A mutex guarding `initialValue`.
    public init(_ initialValue: consuming Value) {
        lock = .allocate(capacity: 1)
        lock.initialize(to: pthread_mutex_t())
        pthread_mutex_init(lock, nil)
        value = .allocate(capacity: 1)
        value.initialize(to: initialValue)
    }

    deinit {
        pthread_mutex_destroy(lock)
        lock.deallocate()
        value.deinitialize(count: 1)
        value.deallocate()
    }

    /// Runs `body` with exclusive access to the value, as `Mutex.withLock` does.
    public borrowing func withLock<Result, Failure: Error>(
        _ body: (inout sending Value) throws(Failure) -> sending Result
    ) throws(Failure) -> sending Result {
        pthread_mutex_lock(lock)
        defer { pthread_mutex_unlock(lock) }
        return try body(&value.pointee)
    }
}
