import Dispatch

/// A route under construction: `routeCase(...)` or `routeEffects(...)` chose the effects, `.to` picks the target.
///
/// The underscore follows Mobius.swift: the type is public so the DSL compiles, but is not meant to be named.
public struct _PartialEffectRouter<Effect, EffectParameters, Event> {
    // Kept @inlinable on init, adding and toEvent: MobiusBench "roundtrip" and "roundtrip-mirror" rows.
    @usableFromInline let routes: [EffectRoute<Effect, Event>]
    @usableFromInline let extract: (Effect) -> EffectParameters?
    @usableFromInline let queue: DispatchQueue?

    @inlinable init(
        routes: [EffectRoute<Effect, Event>],
        extract: @escaping (Effect) -> EffectParameters?,
        queue: DispatchQueue?
    ) {
        self.routes = routes
        self.extract = extract
        self.queue = queue
    }

    /// Runs this route's target on `queue` (asynchronously) instead of on the loop's thread.
    public func on(queue: DispatchQueue) -> _PartialEffectRouter {
        _PartialEffectRouter(routes: routes, extract: extract, queue: queue)
    }

    @inlinable func adding(_ route: EffectRoute<Effect, Event>) -> EffectRouter<Effect, Event> {
        EffectRouter(routes: routes + [route])
    }

    /// Routes to an `EffectHandler`. The handler must end each effect through its callback.
    public func to<Handler: EffectHandler>(_ handler: Handler) -> EffectRouter<Effect, Event>
    where Handler.EffectParameters == EffectParameters, Handler.Event == Event {
        to(handler.handle)
    }

    /// Routes to an effect handler written as a closure.
    public func to(
        _ handle: @escaping (EffectParameters, EffectCallback<Event>) -> any Disposable
    ) -> EffectRouter<Effect, Event> {
        adding(
            .perEffect(extract: extract, queue: queue) { parameters, effect, consumer, running in
                guard let id = running.begin(effect) else { return }
                let callback = EffectCallback<Event>(onSend: consumer, onEnd: { running.end(id) })
                running.attach(handle(parameters, callback), to: id)
            })
    }

    /// Routes to a fire-and-forget closure: it runs, and the effect ends when it returns.
    public func to(_ fireAndForget: @escaping (EffectParameters) -> Void) -> EffectRouter<Effect, Event> {
        adding(.perEffect(extract: extract, queue: queue) { parameters, _, _, _ in fireAndForget(parameters) })
    }

    /// Routes to a closure that may turn the effect into one event.
    @inlinable public func toEvent(
        _ eventClosure: @escaping (EffectParameters) -> Event?
    ) -> EffectRouter<Effect, Event> {
        adding(
            .perEffect(extract: extract, queue: queue) { parameters, _, consumer, _ in
                if let event = eventClosure(parameters) { consumer(event) }
            })
    }

    /// Routes to a `Connectable`, connected once when the router is connected and disposed with it.
    public func to<Target: Connectable>(_ connectable: Target) -> EffectRouter<Effect, Event>
    where Target.Input == EffectParameters, Target.Output == Event {
        let extract = self.extract
        let queue = self.queue
        return adding(
            EffectRoute { consumer in
                let connection = connectable.connect(consumer)
                return ConnectedRoute(
                    bind: { effect in
                        guard let parameters = extract(effect) else { return nil }
                        guard let queue else { return { connection.accept(parameters) } }
                        let work = UncheckedSendable(value: { connection.accept(parameters) })
                        return { queue.async { work.value() } }
                    },
                    dispose: connection.dispose
                )
            })
    }
}

extension _PartialEffectRouter where EffectParameters: Sendable, Event: Sendable {
    /// Routes to an async closure. It runs in a new task per effect; a non-`nil` result is sent to the loop.
    /// Disposing the loop cancels tasks still running.
    public func to(
        _ asyncHandler: @escaping @Sendable (EffectParameters) async -> Event?
    ) -> EffectRouter<Effect, Event> {
        adding(
            .perEffect(extract: extract, queue: nil) { parameters, effect, consumer, running in
                guard let id = running.begin(effect) else { return }
                let send = UncheckedSendable(value: consumer)
                let task = Task {
                    if let event = await asyncHandler(parameters), !Task.isCancelled {
                        send.value(event)
                    }
                    running.end(id)
                }
                running.attach(AnonymousDisposable { task.cancel() }, to: id)
            })
    }
}
