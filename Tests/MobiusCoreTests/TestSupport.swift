import Dispatch
import Foundation
import MobiusCore
import MobiusTestSupport
import Synchronization

/// Collects values from any thread; tests read them back or wait for them.
final class Recorder<Value: Sendable>: Sendable {
    private let storage = Mutex<[Value]>([])

    func append(_ value: Value) {
        storage.withLock { $0.append(value) }
    }

    var values: [Value] {
        storage.withLock { $0 }
    }

    var count: Int {
        storage.withLock { $0.count }
    }

    /// Waits until `condition` holds for the recorded values; false on timeout.
    @discardableResult
    func wait(timeout: Duration = .seconds(5), until condition: ([Value]) -> Bool) -> Bool {
        waitFor(timeout: timeout) { condition(values) }
    }

    /// Waits until at least `count` values were recorded; false on timeout.
    @discardableResult
    func wait(forCount count: Int, timeout: Duration = .seconds(5)) -> Bool {
        wait(timeout: timeout) { $0.count >= count }
    }
}

/// A value behind a mutex, shareable between closures and threads.
final class Shared<Value: Sendable>: Sendable {
    private let mutex: Mutex<Value>

    init(_ value: Value) {
        mutex = Mutex(value)
    }

    var value: Value {
        mutex.withLock { $0 }
    }

    func withLock<Result: Sendable>(_ body: (inout Value) -> Result) -> Result {
        mutex.withLock { body(&$0) }
    }
}

/// A counter any thread may bump.
final class Counter: Sendable {
    private let value = Atomic<Int>(0)

    @discardableResult
    func increment() -> Int {
        value.add(1, ordering: .relaxed).newValue
    }

    var current: Int {
        value.load(ordering: .relaxed)
    }
}

/// Polls `condition` until it holds or `timeout` (times `TestTime.scale`) passes. For waiting on work done by other
/// threads, never as an assertion by itself: callers `#expect` the result.
func waitFor(timeout: Duration = .seconds(5), _ condition: () -> Bool) -> Bool {
    let deadline = ContinuousClock.now.advanced(by: TestTime.scaled(timeout))
    var pause: UInt32 = 50
    while !condition() {
        if ContinuousClock.now >= deadline { return condition() }
        usleep(pause)
        pause = min(pause * 2, 2_000)
    }
    return true
}

/// Like `waitFor`, but suspends instead of blocking a thread of the cooperative pool.
func waitForAsync(timeout: Duration = .seconds(5), _ condition: () -> Bool) async -> Bool {
    let deadline = ContinuousClock.now.advanced(by: TestTime.scaled(timeout))
    while !condition() {
        if ContinuousClock.now >= deadline { return condition() }
        try? await Task.sleep(for: .milliseconds(1))
    }
    return true
}

extension DispatchSemaphore {
    /// Waits up to `seconds` (times `TestTime.scale`); true when signalled in time.
    func waitSucceeds(seconds: Double = 5) -> Bool {
        wait(timeout: .now() + seconds * Double(TestTime.scale)) == .success
    }
}

/// Runs `body(index)` on `count` new threads at once and waits for all of them; false on timeout (times
/// `TestTime.scale`).
func runOnThreads(_ count: Int, timeout: Double = 30, _ body: @escaping @Sendable (Int) -> Void) -> Bool {
    let group = DispatchGroup()
    let go = DispatchSemaphore(value: 0)
    for index in 0..<count {
        group.enter()
        let thread = Thread {
            go.wait()
            body(index)
            group.leave()
        }
        thread.start()
    }
    for _ in 0..<count { go.signal() }
    return group.wait(timeout: .now() + timeout * Double(TestTime.scale)) == .success
}

/// Records misuse reports sent to `MobiusHooks` while `body` runs on this task.
func recordingMisuse<Result>(_ body: () throws -> Result) rethrows -> (result: Result, reports: [String]) {
    let reports = Recorder<String>()
    let result = try MobiusHooks.withErrorHandler({ message, _, _ in reports.append(message) }, operation: body)
    return (result, reports.values)
}

/// An error handler for code running off the test's task (on a loop queue or another thread).
func misuseHandler(_ reports: Recorder<String>) -> MobiusHooks.ErrorHandler {
    { message, _, _ in reports.append(message) }
}

/// A connectable that records what it is sent and how often it was connected and disposed, and can send output.
final class ProbeConnectable<Input: Sendable, Output>: Connectable, @unchecked Sendable {
    // @unchecked: `consumer` is only read and written under `lock`; the other members are Sendable.
    private let lock = NSLock()
    private var consumer: Consumer<Output>?
    let received = Recorder<Input>()
    let connects = Counter()
    let disposals = Counter()
    private let onAccept: (@Sendable (Input) -> Void)?

    init(onAccept: (@Sendable (Input) -> Void)? = nil) {
        self.onAccept = onAccept
    }

    func connect(_ consumer: @escaping Consumer<Output>) -> Connection<Input> {
        lock.withLock { self.consumer = consumer }
        connects.increment()
        return Connection(
            acceptClosure: { [self] input in
                received.append(input)
                onAccept?(input)
            },
            disposeClosure: { [self] in
                disposals.increment()
                lock.withLock { self.consumer = nil }
            }
        )
    }

    /// Sends output through the most recent connection; false when not connected.
    @discardableResult
    func send(_ output: Output) -> Bool {
        guard let consumer = lock.withLock({ self.consumer }) else { return false }
        consumer(output)
        return true
    }
}

/// An event source the test drives by hand.
final class ManualEventSource<Event>: EventSource, @unchecked Sendable {
    // @unchecked: `consumer` is only touched under `lock`.
    private let lock = NSLock()
    private var consumer: Consumer<Event>?
    let subscriptions = Counter()
    let disposals = Counter()

    func subscribe(consumer: @escaping Consumer<Event>) -> any Disposable {
        lock.withLock { self.consumer = consumer }
        subscriptions.increment()
        return AnonymousDisposable { [self] in
            disposals.increment()
            lock.withLock { self.consumer = nil }
        }
    }

    /// Drops the subscriber as if the subscription had been disposed (for cleaning up after a failed test).
    func forceUnsubscribe() {
        lock.withLock { consumer = nil }
    }

    var isSubscribed: Bool {
        lock.withLock { consumer != nil }
    }

    /// Sends an event to the current subscriber; false when there is none.
    @discardableResult
    func emit(_ event: Event) -> Bool {
        guard let consumer = lock.withLock({ self.consumer }) else { return false }
        consumer(event)
        return true
    }
}
