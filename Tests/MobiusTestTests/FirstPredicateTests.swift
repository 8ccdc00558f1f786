import MobiusCore
import MobiusTest
import Testing

@Suite("First predicates")
struct FirstPredicateTests {
    let first = First<LoginModel, LoginEffect>(
        model: LoginModel(username: "ada"), effects: [.restoreSession, .navigateToHome])

    @Test("hasModel passes on an equal model and fails with a diff")
    func hasModelChecks() throws {
        #expect(hasModel(LoginModel(username: "ada"))(first).failureMessage == nil)
        let message = try #require(hasModel(LoginModel(username: "bob"))(first).failureMessage)
        #expect(message.hasPrefix("hasModel failed: model differs"))
        #expect(message.contains("\n-   - username: \"bob\""))
        #expect(message.contains("\n+   - username: \"ada\""))
    }

    @Test("hasEffects passes on a subset in any order and fails naming what is missing")
    func hasEffectsChecks() throws {
        #expect(hasEffects([.navigateToHome])(first).failureMessage == nil)
        let message = try #require(hasEffects([.showError("x")])(first).failureMessage)
        #expect(message.hasPrefix("hasEffects failed: missing [MobiusTestTests.LoginEffect.showError(\"x\")]"))
    }

    @Test("hasOnlyEffects ignores order but not extras")
    func hasOnlyEffectsChecks() throws {
        #expect(hasOnlyEffects([.navigateToHome, .restoreSession])(first).failureMessage == nil)
        let message = try #require(hasOnlyEffects([.navigateToHome])(first).failureMessage)
        #expect(message.contains("unexpected [MobiusTestTests.LoginEffect.restoreSession]"))
    }

    @Test("hasExactlyEffects requires the order")
    func hasExactlyEffectsChecks() {
        #expect(hasExactlyEffects([.restoreSession, .navigateToHome])(first).failureMessage == nil)
        #expect(hasExactlyEffects([.navigateToHome, .restoreSession])(first).failureMessage != nil)
    }

    @Test("hasNoEffects fails when there are start-up effects")
    func hasNoEffectsChecks() throws {
        #expect(hasNoEffects()(First<Int, CounterEffect>(model: 0)).failureMessage == nil)
        let message = try #require(hasNoEffects()(first).failureMessage)
        #expect(message.hasPrefix("hasNoEffects failed: expected no effects, got 2"))
    }
}
