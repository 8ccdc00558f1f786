import MobiusCore

struct LoginModel: Equatable {
    var username = ""
    var password = ""
    var loggingIn = false
    var error: String?
}

enum LoginEvent: Equatable {
    case usernameChanged(String)
    case passwordChanged(String)
    case loginClicked
    case loginSucceeded
    case loginFailed(reason: String)
}

enum LoginEffect: Equatable {
    case attemptLogin(username: String, password: String)
    case showError(String)
    case navigateToHome
    case restoreSession
}

/// The login screen: edit credentials, click login once (further clicks while logging in are ignored).
func loginUpdate(model: LoginModel, event: LoginEvent) -> Next<LoginModel, LoginEffect> {
    var model = model
    switch event {
    case .usernameChanged(let username):
        model.username = username
        return .next(model)
    case .passwordChanged(let password):
        model.password = password
        return .next(model)
    case .loginClicked:
        guard !model.loggingIn else { return .noChange }
        guard !model.username.isEmpty else { return .dispatchEffects([.showError("username is empty")]) }
        model.loggingIn = true
        model.error = nil
        return .next(model, effects: [.attemptLogin(username: model.username, password: model.password)])
    case .loginSucceeded:
        model.loggingIn = false
        return .next(model, effects: [.navigateToHome])
    case .loginFailed(let reason):
        model.loggingIn = false
        model.error = reason
        return .next(model, effects: [.showError(reason)])
    }
}

/// Starting the screen: a login that was in flight is not resumed, and a saved session is looked up.
func loginInitiate(model: LoginModel) -> First<LoginModel, LoginEffect> {
    var model = model
    model.loggingIn = false
    return First(model: model, effects: [.restoreSession])
}
