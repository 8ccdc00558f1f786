import MobiusCore
import MobiusTest
import Testing

@Suite("InitSpec")
struct InitSpecTests {
    @Test("The Mobius doc style compiles and passes with the default fail function")
    func docStyle() {
        let model = LoginModel(username: "ada")
        InitSpec(loginInitiate).when(model).then(assertThatFirst(hasModel(model), hasEffects([.restoreSession])))
    }

    @Test("The result holds the First the initiate function returned")
    func resultHoldsFirst() {
        InitSpec(loginInitiate).when(LoginModel(username: "ada", loggingIn: true))
            .then { result in
                #expect(result.first == First(model: LoginModel(username: "ada"), effects: [.restoreSession]))
            }
    }

    @Test("Failing predicates are reported through the fail function")
    func reportsFailures() {
        let recorder = FailureRecorder()
        InitSpec(loginInitiate).when(LoginModel())
            .then(assertThatFirst(hasModel(LoginModel(username: "x")), hasNoEffects(), failFunction: recorder.fail))
        #expect(recorder.failures.count == 2)
        #expect(recorder.messages.first?.contains("-   - username: \"x\"") == true)
        #expect(recorder.messages.last?.contains("MobiusTestTests.LoginEffect.restoreSession") == true)
    }
}
