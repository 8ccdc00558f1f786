import MobiusCore
import MobiusTest
import Testing

/// The login example from the Mobius documentation, written against this package's own login domain.
@Suite("Login specs")
struct LoginSpecTests {
    let spec = UpdateSpec(loginUpdate)
    let filledIn = LoginModel(username: "ada", password: "secret")

    @Test("Clicking login starts logging in with the entered credentials")
    func loginClicked() {
        var loggingIn = filledIn
        loggingIn.loggingIn = true
        spec.given(filledIn).when(.loginClicked)
            .then(
                assertThatNext(
                    hasModel(loggingIn), hasExactlyEffects([.attemptLogin(username: "ada", password: "secret")])))
    }

    @Test("Typing the credentials and clicking login attempts a login with them")
    func typeThenLogin() {
        spec.given(LoginModel()).when(.usernameChanged("ada"), .passwordChanged("secret"), .loginClicked)
            .then(assertThatNext(hasEffects([.attemptLogin(username: "ada", password: "secret")])))
    }

    @Test("A second click while logging in does nothing")
    func doubleClick() {
        spec.given(filledIn).when(.loginClicked, .loginClicked).then(assertThatNext(hasNothing()))
    }

    @Test("An empty username shows an error instead of logging in")
    func emptyUsername() {
        spec.given(LoginModel()).when(.loginClicked)
            .then(assertThatNext(hasNoModel(), hasOnlyEffects([.showError("username is empty")])))
    }

    @Test("A failed login stops logging in and shows the reason")
    func loginFailed() {
        spec.given(filledIn).when(.loginClicked, .loginFailed(reason: "wrong password"))
            .then { result in
                #expect(result.model.loggingIn == false)
                #expect(result.model.error == "wrong password")
                assertThatNext(hasEffects([LoginEffect.showError("wrong password")]))(result)
            }
    }

    @Test("Starting the screen cancels a stale login and restores the session")
    func initiate() {
        InitSpec(loginInitiate).when(LoginModel(username: "ada", loggingIn: true))
            .then(assertThatFirst(hasModel(LoginModel(username: "ada")), hasExactlyEffects([.restoreSession])))
    }
}
