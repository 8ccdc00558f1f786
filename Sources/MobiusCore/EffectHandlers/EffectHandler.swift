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

/// A type-erased `EffectHandler`, or one made from a closure.
public struct AnyEffectHandler<EffectParameters, Event>: EffectHandler {
    private let handleClosure: (EffectParameters, EffectCallback<Event>) -> any Disposable

    /// Creates a handler from a closure.
    public init(handle: @escaping (EffectParameters, EffectCallback<Event>) -> any Disposable) {
        self.handleClosure = handle
    }

    /// Wraps another handler.
    public init<Handler: EffectHandler>(handler: Handler)
    where Handler.EffectParameters == EffectParameters, Handler.Event == Event {
        self.handleClosure = handler.handle
    }

    /// Passes the effect to the closure or handler this one was made from.
    public func handle(_ parameters: EffectParameters, _ callback: EffectCallback<Event>) -> any Disposable {
        handleClosure(parameters, callback)
    }
}
