internal import Glibc

/// A mutex with a condition variable, for a thread that must sleep until another thread hands it work.
/// (Synchronization's `Mutex` has no condition.) The corresponding C types are `pthread_mutex_t` and
/// `pthread_cond_t`.
package final class ThreadCondition: @unchecked Sendable {
    // @unchecked: the pthread objects are heap-allocated, never move, and are only used through pthread calls.
    private let mutex: UnsafeMutablePointer<pthread_mutex_t>
    private let condition: UnsafeMutablePointer<pthread_cond_t>

    package init() {
        mutex = .allocate(capacity: 1)
        mutex.initialize(to: pthread_mutex_t())
        pthread_mutex_init(mutex, nil)
        condition = .allocate(capacity: 1)
        condition.initialize(to: pthread_cond_t())
        var attributes = pthread_condattr_t()
        pthread_condattr_init(&attributes)
        pthread_condattr_setclock(&attributes, CLOCK_MONOTONIC)
        pthread_cond_init(condition, &attributes)
        pthread_condattr_destroy(&attributes)
    }

    deinit {
        pthread_cond_destroy(condition)
        pthread_mutex_destroy(mutex)
        condition.deallocate()
        mutex.deallocate()
    }

    /// Runs `body` holding the mutex.
    @inline(__always)
    package func withLock<Result>(_ body: () throws -> Result) rethrows -> Result {
        pthread_mutex_lock(mutex)
        defer { pthread_mutex_unlock(mutex) }
        return try body()
    }

    /// Waits for a signal; call inside `withLock`. With a timeout, returns `false` when it expired.
    @discardableResult
    package func wait(timeoutNanoseconds: UInt64? = nil) -> Bool {
        guard let timeoutNanoseconds else {
            pthread_cond_wait(condition, mutex)
            return true
        }
        let deadline = SystemProcess.monotonicNanoseconds() + timeoutNanoseconds
        var spec = timespec(tv_sec: Int(deadline / 1_000_000_000), tv_nsec: Int(deadline % 1_000_000_000))
        return pthread_cond_timedwait(condition, mutex, &spec) != ETIMEDOUT
    }

    /// Wakes all waiters; call inside or outside `withLock`.
    package func broadcast() {
        pthread_cond_broadcast(condition)
    }
}
