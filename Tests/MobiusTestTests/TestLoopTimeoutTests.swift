import Dispatch
import MobiusCore
import MobiusTest
import Synchronization
import Testing

@Suite("TestLoop timeouts")
struct TestLoopTimeoutTests {
    enum TimerEvent: Equatable {
        case start
        case tick
    }

    enum TimerEffect: Equatable {
        case startTimer
    }

    static func update(model: Int, event: TimerEvent) -> Next<Int, TimerEffect> {
        switch event {
        case .start: .dispatchEffects([.startTimer])
        case .tick: .next(model + 1)
        }
    }

    /// Set when the timer effect is disposed.
    final class StopFlag: Sendable {
        private let stopped = Atomic<Bool>(false)
        var isStopped: Bool { stopped.load(ordering: .relaxed) }
        func stop() { stopped.store(true, ordering: .relaxed) }
    }

    /// A timer effect that ticks every few milliseconds and never ends by itself; disposal stops it.
    static func timerRouter(stopped: StopFlag) -> EffectRouter<TimerEffect, TimerEvent> {
        EffectRouter<TimerEffect, TimerEvent>()
            .routeCase(TimerEffect.startTimer).to { _, callback in
                let timer = DispatchSource.makeTimerSource(queue: DispatchQueue(label: "ticker"))
                timer.schedule(deadline: .now(), repeating: .milliseconds(5))
                timer.setEventHandler { callback.send(.tick) }
                timer.resume()
                return AnonymousDisposable {
                    timer.cancel()
                    stopped.stop()
                }
            }
    }

    @Test("exhaust() fails after the timeout when a handler never ends, naming its effect")
    func neverEndingHandler() throws {
        let recorder = FailureRecorder()
        let stopped = StopFlag()
        let loop = TestLoop(
            update: Self.update, model: 0, effectHandler: Self.timerRouter(stopped: stopped),
            failFunction: recorder.fail)
        loop.send(.start)
        let started = ContinuousClock.now
        let line: UInt = #line + 1
        loop.exhaust(timeout: .milliseconds(300))
        let elapsed = ContinuousClock.now - started
        let failure = try #require(recorder.failures.first)
        #expect(recorder.failures.count == 1)
        #expect(failure.line == line)
        #expect(failure.message.hasPrefix("TestLoop.exhaust timed out after 0.3 seconds"))
        #expect(failure.message.contains("latest event: MobiusTestTests.TestLoopTimeoutTests.TimerEvent.tick"))
        #expect(failure.message.contains("TimerEffect.startTimer"))
        #expect(elapsed >= .milliseconds(300) && elapsed < .seconds(5))
        #expect(loop.model > 0)

        loop.skipEffects()
        loop.skipReceivedEvents()
        loop.finish(timeout: .milliseconds(50))
        #expect(stopped.isStopped, "finish() disposes the effect still running")
    }

    /// A handler that works on another queue for `delay`, sends nothing, then ends.
    static func silentRouter(delay: DispatchTimeInterval, done: StopFlag) -> EffectRouter<TimerEffect, TimerEvent> {
        EffectRouter<TimerEffect, TimerEvent>()
            .routeCase(TimerEffect.startTimer).to { _, callback in
                DispatchQueue(label: "silent").asyncAfter(deadline: .now() + delay) {
                    done.stop()
                    callback.end()
                }
                return AnonymousDisposable {}
            }
    }

    @Test("exhaust() waits for a handler that sends nothing but has not ended, beyond the quiet period")
    func waitsForSilentHandler() {
        let recorder = FailureRecorder()
        let done = StopFlag()
        let loop = TestLoop(
            update: Self.update, model: 0, effectHandler: Self.silentRouter(delay: .milliseconds(300), done: done),
            quietPeriod: .milliseconds(20), failFunction: recorder.fail)
        loop.send(.start)
        loop.exhaust(timeout: .seconds(5))
        #expect(done.isStopped, "exhaust returned before the handler ended")
        loop.assertEffects([.startTimer])
        loop.finish()
        #expect(recorder.messages.isEmpty)
    }

    @Test("exhaust() names a silent handler that never ends when it times out")
    func namesSilentRunningEffect() throws {
        let recorder = FailureRecorder()
        let loop = TestLoop(
            update: Self.update, model: 0,
            effectHandler: Self.silentRouter(delay: .seconds(60), done: StopFlag()),
            quietPeriod: .milliseconds(20), failFunction: recorder.fail)
        loop.send(.start)
        loop.exhaust(timeout: .milliseconds(200))
        let failure = try #require(recorder.failures.first)
        #expect(
            failure.message.contains(
                "Effects still running: MobiusTestTests.TestLoopTimeoutTests.TimerEffect.startTimer"))
        loop.skipEffects()
        loop.finish(timeout: .milliseconds(10))
    }

    @Test("exhaust() returns at once when nothing was dispatched")
    func idleReturnsImmediately() {
        let recorder = FailureRecorder()
        let loop = TestLoop(
            update: Self.update, model: 0, effectHandler: Self.timerRouter(stopped: StopFlag()),
            quietPeriod: .seconds(10), failFunction: recorder.fail)
        let started = ContinuousClock.now
        loop.exhaust()
        #expect(ContinuousClock.now - started < .seconds(1))
        loop.finish()
        #expect(recorder.messages.isEmpty)
    }
}
