import MobiusCore
import MobiusTest
import Synchronization
import Testing

@Suite("TestLoop with a counter")
struct TestLoopCounterTests {
    /// A counter whose sound player counts how often it played.
    final class Fixture: Sendable {
        let soundsPlayed = Atomic<Int>(0)

        var router: EffectRouter<CounterEffect, CounterEvent> {
            EffectRouter<CounterEffect, CounterEvent>()
                .routeCase(CounterEffect.playSound).to { self.soundsPlayed.add(1, ordering: .relaxed) }
        }
    }

    @Test("Events run through the real update and the real effect handler")
    func countsAndPlaysSound() {
        let fixture = Fixture()
        let recorder = FailureRecorder()
        let loop = TestLoop(update: counterUpdate, model: 1, effectHandler: fixture.router, failFunction: recorder.fail)
        loop.send(.decrement)
        #expect(loop.model == 0)
        loop.send(.decrement)
        #expect(loop.model == 0)
        loop.exhaust()
        loop.assertEffects([.playSound])
        loop.assertReceived([])
        loop.finish()
        #expect(fixture.soundsPlayed.load(ordering: .relaxed) == 1)
        #expect(recorder.messages.isEmpty)
    }

    @Test("send applies only its own event; a synchronous answer from a handler waits for receive")
    func synchronousAnswerWaits() {
        let recorder = FailureRecorder()
        let answering = EffectRouter<CounterEffect, CounterEvent>()
            .routeCase(CounterEffect.playSound).toEvent { .increment }
        let loop = TestLoop(update: counterUpdate, model: 0, effectHandler: answering, failFunction: recorder.fail)
        loop.send(.decrement)
        #expect(loop.model == 0)
        #expect(loop.receivedEvents.isEmpty)
        loop.receive(.increment)
        #expect(loop.model == 1)
        loop.assertEffects([.playSound])
        loop.finish()
        #expect(recorder.messages.isEmpty)
    }

    @Test("A start-up effect from initiate is dispatched and must be asserted")
    func initiateEffects() {
        let fixture = Fixture()
        let recorder = FailureRecorder()
        let loop = TestLoop(
            update: counterUpdate, initiate: { First(model: $0, effects: [.playSound]) }, model: 5,
            effectHandler: fixture.router, failFunction: recorder.fail)
        #expect(loop.dispatchedEffects == [.playSound])
        loop.assertEffects([.playSound])
        loop.finish()
        #expect(fixture.soundsPlayed.load(ordering: .relaxed) == 1)
        #expect(recorder.messages.isEmpty)
    }

    @Test("finish() reports an effect the test did not assert")
    func unassertedEffect() throws {
        let recorder = FailureRecorder()
        let loop = TestLoop(
            update: counterUpdate, model: 0, effectHandler: Fixture().router, failFunction: recorder.fail)
        loop.send(.decrement)
        let line: UInt = #line + 1
        loop.finish()
        let failure = try #require(recorder.failures.first)
        #expect(recorder.failures.count == 1)
        #expect(failure.message == "TestLoop: 1 effect(s) not asserted:\n  MobiusTestTests.CounterEffect.playSound")
        #expect(failure.line == line)
    }

    @Test("Dropping the loop without finish() still reports what was not asserted")
    func deinitReports() {
        let recorder = FailureRecorder()
        do {
            let loop = TestLoop(
                update: counterUpdate, model: 0, effectHandler: Fixture().router, failFunction: recorder.fail)
            loop.send(.decrement)
        }
        #expect(recorder.messages == ["TestLoop: 1 effect(s) not asserted:\n  MobiusTestTests.CounterEffect.playSound"])
    }

    @Test("assertEffects reports a mismatch with a diff and consumes the effects")
    func assertEffectsMismatch() throws {
        let recorder = FailureRecorder()
        let loop = TestLoop(
            update: counterUpdate, model: 0, effectHandler: Fixture().router, failFunction: recorder.fail)
        loop.send(.decrement)
        loop.assertEffects([])
        let message = try #require(recorder.messages.first)
        #expect(message.hasPrefix("TestLoop.assertEffects failed: effects differ\n(- expected, + actual)\n"))
        #expect(message.contains("\n+   - MobiusTestTests.CounterEffect.playSound"))
        loop.finish()
        #expect(recorder.failures.count == 1)
    }

    @Test("Sending after finish() is reported")
    func sendAfterFinish() {
        let recorder = FailureRecorder()
        let loop = TestLoop(
            update: counterUpdate, model: 0, effectHandler: Fixture().router, failFunction: recorder.fail)
        loop.finish()
        loop.send(.increment)
        #expect(loop.model == 0)
        #expect(recorder.messages.count == 1)
        #expect(recorder.messages.first?.contains("after finish()") == true)
    }
}
