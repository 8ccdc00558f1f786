/// Handles one kind of effect: given its parameters and a callback, does the work and returns a `Disposable`
/// that cancels it.
///
/// The handler must call `callback.end()` when the work is done (directly or later, from any thread).
public protocol EffectHandler {
    /// The data the effect carries (the enum case's payload when routed with `routeCase`).
    associatedtype EffectParameters
    /// The loop's event type.
    associatedtype Event

    /// Starts handling one effect.
    func handle(_ parameters: EffectParameters, _ callback: EffectCallback<Event>) -> any Disposable
}
