/// Carries a value across a concurrency boundary the compiler cannot prove safe.
///
/// Used only where the library's contract makes it safe: user closures routed with `.on(queue:)` run on the queue
/// the user chose (as in Mobius.swift), and loop event consumers accept events from any thread.
@usableFromInline package struct UncheckedSendable<Value>: @unchecked Sendable {
    // Kept @inlinable: every MobiusBench row (Locked's results cross the mutex in it).
    @usableFromInline package let value: Value

    @inlinable package init(value: Value) {
        self.value = value
    }
}
