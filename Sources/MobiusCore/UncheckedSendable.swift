/// Carries a value across a concurrency boundary the compiler cannot prove safe.
///
/// Used only where a contract makes it safe: user closures routed with `.on(queue:)` run on the queue the user chose
/// (as in Mobius.swift); loop event consumers accept events from any thread; in the daemon, a value that belongs to
/// the reactor thread passes through another thread (a worker, the waker's queue) untouched and is used only back on
/// the reactor thread, and a daemon setup (immutable, its app's closures pure) goes to the reload thread and back.
@usableFromInline package struct UncheckedSendable<Value>: @unchecked Sendable {
    // Kept @inlinable: every MobiusBench row (Locked's results cross the mutex in it).
    @usableFromInline package let value: Value

    @inlinable package init(value: Value) {
        self.value = value
    }
}
