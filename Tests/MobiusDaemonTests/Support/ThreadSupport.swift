import MobiusSystem
import MobiusTestSupport
import Testing

@testable import MobiusDaemon

/// Carries a value that is not `Sendable` to another thread that then owns it (a reactor handed to the thread that
/// runs it, a loop handed back through a waker).
struct Handed<Value>: @unchecked Sendable {
    // @unchecked: each test hands the value over once and only the receiving thread touches it afterwards, or the
    // hand-over is ordered by thread start, a join or a `Checkpoint`.
    let value: Value
}

/// A value several threads update under a lock, which a test waits on with a bound instead of sleeping.
final class Checkpoint<Value>: @unchecked Sendable {
    // @unchecked: `value` is only touched while holding `condition`'s mutex.
    private let condition = ThreadCondition()
    private var value: Value

    init(_ value: Value) {
        self.value = value
    }

    /// Changes the value and wakes waiters.
    func update(_ change: (inout Value) -> Void) {
        condition.withLock { change(&value) }
        condition.broadcast()
    }

    /// The value now.
    var current: Value { condition.withLock { value } }

    /// Waits until `ready` holds, at most `timeoutNanoseconds` (times `TestTime.scale`); returns whether it does.
    @discardableResult
    func wait(
        timeoutNanoseconds: UInt64 = 5_000_000_000, until ready: (Value) -> Bool
    ) -> Bool {
        let deadline = SystemProcess.monotonicNanoseconds() + TestTime.scaled(nanoseconds: timeoutNanoseconds)
        return condition.withLock {
            while !ready(value) {
                let now = SystemProcess.monotonicNanoseconds()
                guard now < deadline else { return false }
                condition.wait(timeoutNanoseconds: deadline - now)
            }
            return true
        }
    }
}

/// Runs `reactor` on a thread of its own until it stops, waiting at most `timeoutNanoseconds`. If it has not
/// stopped by then, records an issue and stops it through its waker, so a broken reactor fails the test instead
/// of hanging it. Returns the reactor thread's id.
@discardableResult
func runReactor(
    _ reactor: Reactor, timeoutNanoseconds: UInt64 = 5_000_000_000, sourceLocation: SourceLocation = #_sourceLocation
) throws -> UInt {
    let handed = Handed(value: reactor)
    let finished = Checkpoint<(thread: UInt, error: String?)?>(nil)
    let thread = try SystemThread.spawn(name: "test-reactor", stackSize: 1 << 20, joinable: true) {
        let id = SystemThread.currentID
        var failure: String?
        do {
            try handed.value.run()
        } catch {
            failure = "\(error)"
        }
        finished.update { $0 = (id, failure) }
    }
    if !finished.wait(timeoutNanoseconds: timeoutNanoseconds, until: { $0 != nil }) {
        Issue.record("the reactor did not stop in time", sourceLocation: sourceLocation)
        let reactor = handed
        reactor.value.waker.post { reactor.value.stop() }
    }
    thread.join()
    let outcome = finished.current
    if let error = outcome?.error { Issue.record("run() threw: \(error)", sourceLocation: sourceLocation) }
    return outcome?.thread ?? 0
}

/// Starts a joinable thread for a producer in a test.
func spawnThread(_ name: String, _ body: @escaping @Sendable () -> Void) throws -> SystemThread.Handle {
    try SystemThread.spawn(name: name, stackSize: 1 << 20, joinable: true, body)
}
