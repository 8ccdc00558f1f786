import Synchronization

/// A value behind a mutex, for state that is not `Sendable` (models, events, closures).
///
/// `Mutex<Value>` requires values it hands out to be provably disconnected; the library's state holds user closures
/// and values, so the mutex guards a stored value beside it instead and results cross it in an `UncheckedSendable`.
@usableFromInline package final class Locked<Value>: @unchecked Sendable {
    // Kept @inlinable: every MobiusBench row (each event takes the lock).
    // @unchecked: `value` is only touched inside `mutex.withLock`.
    @usableFromInline let mutex = Mutex<Void>(())
    // Kept: MobiusBench "loop", "roundtrip" and "controller" rows; the mutex already makes access exclusive.
    @exclusivity(unchecked) @usableFromInline var value: Value

    @inlinable package init(_ value: Value) {
        self.value = value
    }

    /// Runs `body` with exclusive access to the value.
    @inlinable package func withLock<Result>(_ body: (inout Value) -> Result) -> Result {
        mutex.withLock { _ in UncheckedSendable(value: body(&value)) }.value
    }
}
