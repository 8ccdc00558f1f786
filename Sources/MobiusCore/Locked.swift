import Synchronization

/// A value behind a mutex, for state that is not `Sendable` (models, events, closures).
///
/// `Mutex<Value>` requires values it hands out to be provably disconnected; the library's state holds user closures
/// and values, so the mutex guards a stored property instead and results cross it in an `UncheckedSendable`.
package final class Locked<Value>: @unchecked Sendable {
    // @unchecked: `value` is only touched inside `mutex.withLock`.
    private let mutex = Mutex<Void>(())
    private var value: Value

    package init(_ value: Value) {
        self.value = value
    }

    /// Runs `body` with exclusive access to the value.
    @inline(__always)
    package func withLock<Result>(_ body: (inout Value) -> Result) -> Result {
        mutex.withLock { _ in UncheckedSendable(value: body(&self.value)) }.value
    }
}
