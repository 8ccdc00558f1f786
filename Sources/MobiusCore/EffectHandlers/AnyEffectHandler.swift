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
