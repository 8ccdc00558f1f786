/// Routes each effect to exactly one handler, chosen by the routes declared with `routeCase`, `routeEffects`.
///
/// ```swift
/// let handler = EffectRouter<Effect, Event>()
///     .routeCase(Effect.playSound).to { player.play() }
///     .routeCase(Effect.search).to(SearchHandler())
///     .asConnectable
/// ```
///
/// Each effect must match exactly one route. An effect matching none, or more than one, is a programmer error
/// reported to `MobiusHooks.errorHandler` (and then dropped if the handler returns).
public struct EffectRouter<Effect, Event>: Connectable {
    // Kept @inlinable (here and in routeCase): MobiusBench "roundtrip" and "roundtrip-mirror" rows.
    @usableFromInline let routes: [EffectRoute<Effect, Event>]

    /// Creates a router with no routes.
    @inlinable public init() {
        self.routes = []
    }

    @inlinable init(routes: [EffectRoute<Effect, Event>]) {
        self.routes = routes
    }

    /// Starts a route for effects from which `extract` gets parameters (it returns `nil` for other effects).
    @inlinable public func routeEffects<EffectParameters>(
        withParameters extract: @escaping (Effect) -> EffectParameters?
    ) -> _PartialEffectRouter<Effect, EffectParameters, Event> {
        _PartialEffectRouter(routes: routes, extract: extract, queue: nil)
    }

    /// The router as a type-erased `Connectable`, for `Mobius.loop(update:effectHandler:)`.
    public var asConnectable: AnyConnectable<Effect, Event> {
        AnyConnectable(self)
    }

    /// Connects every route to `consumer`; each effect then runs on the one route that matches it.
    ///
    /// An effect with no matching route, or with several, is reported to `MobiusHooks.errorHandler` and not run.
    /// Disposing the connection disposes every route.
    @inlinable public func connect(_ consumer: @escaping Consumer<Event>) -> Connection<Effect> {
        let connected = routes.map { $0.connect(consumer) }
        let tag = "EffectRouter<\(Effect.self), \(Event.self)>"
        return Connection(
            acceptClosure: { effect in
                var chosen: (() -> Void)?
                var matches = 0
                for route in connected {
                    if let run = route.bind(effect) {
                        matches += 1
                        if chosen == nil { chosen = run }
                    }
                }
                guard matches == 1, let run = chosen else {
                    let problem = matches == 0 ? "no route" : "\(matches) routes (exactly one is required)"
                    MobiusHooks.errorHandler("\(tag): \(problem) for effect \(effect)")
                    return
                }
                run()
            },
            disposeClosure: {
                for route in connected {
                    route.dispose()
                }
            }
        )
    }
}

extension EffectRouter where Effect: Equatable {
    /// Starts a route for effects equal to `constant`; the handler gets the effect itself.
    public func routeEffects(equalTo constant: Effect) -> _PartialEffectRouter<Effect, Effect, Event> {
        routeEffects(withParameters: { $0 == constant ? $0 : nil })
    }

    /// Starts a route for a payload-less enum case, compared with `==`.
    @inlinable public func routeCase(_ enumCase: Effect) -> _PartialEffectRouter<Effect, Void, Event> {
        routeEffects(withParameters: { $0 == enumCase ? () : nil })
    }
}

extension EffectRouter {
    /// Starts a route for an enum case with a payload, such as `routeCase(Effect.search)` for
    /// `case search(query: String)`. The handler gets the payload.
    ///
    /// Matching uses reflection (`Mirror`); see docs/library.md for its cost.
    @inlinable public func routeCase<Payload>(
        _ enumCase: @escaping (Payload) -> Effect
    ) -> _PartialEffectRouter<Effect, Payload, Event> {
        let matcher = EnumCaseMatcher(embed: enumCase)
        return routeEffects(withParameters: matcher.extract)
    }
}

extension EffectRouter {
    /// Connects the router for a host that has handlers of its own (the daemon's plugins and built-ins): an effect
    /// this router has no route for is not an error here; `accept` returns `false` and the host routes it.
    /// An effect matching several routes is still reported to `MobiusHooks`.
    package func connectAsPartialHandler(
        _ consumer: @escaping Consumer<Event>
    ) -> (accept: (Effect) -> Bool, dispose: () -> Void) {
        let connected = routes.map { $0.connect(consumer) }
        let tag = "EffectRouter<\(Effect.self), \(Event.self)>"
        let accept = { (effect: Effect) -> Bool in
            let matching = connected.compactMap { $0.bind(effect) }
            guard let run = matching.first else { return false }
            if matching.count > 1 {
                MobiusHooks.errorHandler(
                    "\(tag): \(matching.count) routes (exactly one is required) for effect \(effect)")
                return true
            }
            run()
            return true
        }
        return (accept, { connected.forEach { $0.dispose() } })
    }
}
