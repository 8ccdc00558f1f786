import MobiusCore
import MobiusTest
import Testing

@Suite("Next predicates")
struct NextPredicateTests {
    typealias CounterNext = Next<Int, CounterEffect>

    @Test("hasModel() passes with any model and fails without one")
    func hasAnyModel() {
        #expect(hasModel()(CounterNext.next(3)).failureMessage == nil)
        let message = hasModel()(CounterNext.noChange).failureMessage
        #expect(message == "hasModel failed: expected a model, got none")
    }

    @Test("hasModel(_:) passes on an equal model")
    func hasModelPasses() {
        #expect(hasModel(3)(CounterNext.next(3)).failureMessage == nil)
    }

    @Test("hasModel(_:) fails with a line diff of expected and actual")
    func hasModelDiff() throws {
        let expected = LoginModel(username: "ada", password: "pw", loggingIn: true)
        let actual = LoginModel(username: "ada", password: "pw", loggingIn: false)
        let predicate: NextPredicate<LoginModel, LoginEffect> = hasModel(expected)
        let message = try #require(predicate(.next(actual)).failureMessage)
        #expect(message.hasPrefix("hasModel failed: model differs\n(- expected, + actual)\n"))
        #expect(message.contains("\n-   - loggingIn: true"))
        #expect(message.contains("\n+   - loggingIn: false"))
        #expect(message.contains("\n    - username: \"ada\""))
    }

    @Test("hasModel(_:) fails when there is no model, showing the expected one")
    func hasModelMissing() throws {
        let message = try #require(hasModel(3)(CounterNext.dispatchEffects([.playSound])).failureMessage)
        #expect(message == "hasModel failed: expected a model, got none\nexpected:\n3")
    }

    @Test("hasNoModel() passes without a model and fails with one")
    func hasNoModelChecks() {
        #expect(hasNoModel()(CounterNext.dispatchEffects([.playSound])).failureMessage == nil)
        #expect(hasNoModel()(CounterNext.next(4)).failureMessage == "hasNoModel failed: expected no model, got:\n4")
    }

    @Test(
        "hasEffects passes when all expected effects are present, in any order, extras allowed",
        arguments: [
            [LoginEffect.navigateToHome],
            [.restoreSession, .navigateToHome],
            [],
        ])
    func hasEffectsPasses(expected: [LoginEffect]) {
        let next = Next<LoginModel, LoginEffect>.dispatchEffects([.navigateToHome, .showError("x"), .restoreSession])
        #expect(hasEffects(expected)(next).failureMessage == nil)
    }

    @Test("hasEffects fails naming the missing effects and counts duplicates")
    func hasEffectsFails() throws {
        let next = Next<Int, CounterEffect>.dispatchEffects([.playSound])
        let message = try #require(hasEffects([.playSound, .playSound])(next).failureMessage)
        #expect(message.hasPrefix("hasEffects failed: missing [MobiusTestTests.CounterEffect.playSound]"))
        #expect(message.contains("- ▿ 2 elements"))
        #expect(message.contains("+ ▿ 1 element"))
    }

    @Test("hasOnlyEffects passes on the same effects in another order")
    func hasOnlyEffectsPasses() {
        let next = Next<LoginModel, LoginEffect>.dispatchEffects([.navigateToHome, .restoreSession])
        #expect(hasOnlyEffects([.restoreSession, .navigateToHome])(next).failureMessage == nil)
    }

    @Test("hasOnlyEffects fails naming missing and unexpected effects")
    func hasOnlyEffectsFails() throws {
        let next = Next<LoginModel, LoginEffect>.dispatchEffects([.navigateToHome, .showError("boom")])
        let message = try #require(hasOnlyEffects([.navigateToHome, .restoreSession])(next).failureMessage)
        #expect(message.contains("hasOnlyEffects failed: missing [MobiusTestTests.LoginEffect.restoreSession]"))
        #expect(message.contains("unexpected [MobiusTestTests.LoginEffect.showError(\"boom\")]"))
        #expect(message.contains("\n-   - MobiusTestTests.LoginEffect.restoreSession"))
        #expect(message.contains("\n+     - showError: \"boom\""))
    }

    @Test("hasExactlyEffects passes on the same order and fails on another order")
    func hasExactlyEffectsOrder() throws {
        let next = Next<LoginModel, LoginEffect>.dispatchEffects([.restoreSession, .navigateToHome])
        #expect(hasExactlyEffects([.restoreSession, .navigateToHome])(next).failureMessage == nil)
        let message = try #require(hasExactlyEffects([.navigateToHome, .restoreSession])(next).failureMessage)
        #expect(message.hasPrefix("hasExactlyEffects failed: effects differ\n(- expected, + actual)\n"))
        #expect(message.contains("\n-   - MobiusTestTests.LoginEffect.navigateToHome"))
        #expect(message.contains("\n+   - MobiusTestTests.LoginEffect.navigateToHome"))
    }

    @Test("hasNoEffects passes without effects and fails listing the actual ones")
    func hasNoEffectsChecks() throws {
        #expect(hasNoEffects()(CounterNext.next(1)).failureMessage == nil)
        let message = try #require(hasNoEffects()(CounterNext.dispatchEffects([.playSound])).failureMessage)
        #expect(message.hasPrefix("hasNoEffects failed: expected no effects, got 1"))
        #expect(message.contains("\n+   - MobiusTestTests.CounterEffect.playSound"))
    }

    @Test("hasNothing passes on noChange and fails on a model or an effect")
    func hasNothingChecks() throws {
        #expect(hasNothing()(CounterNext.noChange).failureMessage == nil)
        let withModel = try #require(hasNothing()(CounterNext.next(7)).failureMessage)
        #expect(withModel.hasPrefix("hasNothing failed: expected no model and no effects"))
        #expect(withModel.contains("+     - some: 7"))
        #expect(hasNothing()(CounterNext.dispatchEffects([.playSound])).failureMessage != nil)
    }

    @Test("A failure points at the line of the predicate's call")
    func failureLocation() {
        let line: UInt = #line + 1
        let result = hasModel(1)(CounterNext.next(2))
        guard case .failure(_, let file, let failureLine) = result else {
            Issue.record("expected a failure")
            return
        }
        #expect(failureLine == line)
        #expect("\(file)".hasSuffix("NextPredicateTests.swift"))
    }
}
