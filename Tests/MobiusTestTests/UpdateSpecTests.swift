import MobiusCore
import MobiusTest
import Testing

@Suite("UpdateSpec")
struct UpdateSpecTests {
    @Test("The Mobius doc style compiles and passes with the default fail function")
    func docStyle() {
        UpdateSpec(counterUpdate).given(0).when(.increment).then(assertThatNext(hasModel(1), hasNoEffects()))
        UpdateSpec(Update(counterUpdate)).given(0).when(.decrement)
            .then(assertThatNext(hasNoModel(), hasEffects([.playSound])))
    }

    @Test("The default fail function records a Swift Testing issue")
    func defaultFailFunctionRecordsIssue() {
        withKnownIssue {
            UpdateSpec(counterUpdate).given(0).when(.increment).then(assertThatNext(hasModel(5)))
        } matching: { issue in
            issue.comments.contains { $0.rawValue.hasPrefix("hasModel failed: model differs") }
        }
    }

    @Test("Events apply in order, each to the model the previous one produced")
    func multipleEvents() {
        var seen: [Int] = []
        let spy = { (model: Int, event: CounterEvent) -> Next<Int, CounterEffect> in
            seen.append(model)
            return counterUpdate(model: model, event: event)
        }
        UpdateSpec(spy).given(1).when(.increment, .increment, .decrement)
            .then { result in
                #expect(result.model == 2)
                #expect(result.lastNext == .next(2))
            }
        #expect(seen == [1, 2, 3])
    }

    @Test("The result model is the last model produced, even when the last event produces none")
    func modelSurvivesNoChange() {
        UpdateSpec(counterUpdate).given(0).when(.increment, .decrement, .decrement)
            .then { result in
                #expect(result.model == 0)
                #expect(result.lastNext == .dispatchEffects([.playSound]))
            }
    }

    @Test("Every failing predicate is reported, with its message and line, passing ones are not")
    func reportsEachFailure() {
        let recorder = FailureRecorder()
        let line: UInt = #line + 3
        UpdateSpec(counterUpdate).given(0).when(.decrement)
            .then(
                assertThatNext(hasModel(9), hasEffects([.playSound]), hasNoEffects(), failFunction: recorder.fail))
        #expect(recorder.failures.count == 2)
        #expect(recorder.messages.first == "hasModel failed: expected a model, got none\nexpected:\n9")
        #expect(recorder.messages.last?.hasPrefix("hasNoEffects failed") == true)
        #expect(recorder.failures.allSatisfy { $0.line == line })
    }
}
