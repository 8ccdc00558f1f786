import Dispatch
import Synchronization

/// One declared route: how to extract parameters, and what to connect when the router is connected.
@usableFromInline struct EffectRoute<Effect, Event> {
    // Kept (with ConnectedRoute and perEffect): MobiusBench "roundtrip" and "roundtrip-mirror" rows.
    @usableFromInline let connect: (@escaping Consumer<Event>) -> ConnectedRoute<Effect>

    @inlinable init(connect: @escaping (@escaping Consumer<Event>) -> ConnectedRoute<Effect>) {
        self.connect = connect
    }
}

/// A route connected to a loop: `bind` returns the work for an effect this route matches, or `nil`.
@usableFromInline struct ConnectedRoute<Effect> {
    @usableFromInline let bind: (Effect) -> (() -> Void)?
    @usableFromInline let dispose: () -> Void

    @inlinable init(bind: @escaping (Effect) -> (() -> Void)?, dispose: @escaping () -> Void) {
        self.bind = bind
        self.dispose = dispose
    }
}

/// Tracks the effects a handler route has running, so that disposing the router cancels them.
@usableFromInline final class RunningEffects: @unchecked Sendable {
    // @unchecked: all state is behind `state`'s mutex.
    private struct State {
        var nextID = 0
        var live: Set<Int> = []
        var disposables: [Int: any Disposable] = [:]
        var disposed = false

    }

    private let state = Locked(State())
    private let activity: (any EffectActivityObserver)?
    private let tokens = Locked<[Int: Int]>([:])

    @usableFromInline init(activity: (any EffectActivityObserver)?) {
        self.activity = activity
    }

    /// Reserves an id for an effect about to start; `nil` once the route is disposed.
    func begin<Effect>(_ effect: Effect) -> Int? {
        let id = state.withLock { state -> Int? in
            guard !state.disposed else { return nil }
            state.nextID += 1
            state.live.insert(state.nextID)
            return state.nextID
        }
        if let id, let activity {
            let token = activity.effectBegan(String(reflecting: effect))
            tokens.withLock { $0[id] = token }
        }
        return id
    }

    /// Records how to cancel effect `id`, unless it already ended. Disposes at once if the route is gone.
    func attach(_ disposable: any Disposable, to id: Int) {
        let disposeNow = state.withLock { state -> Bool in
            if state.disposed { return true }
            if state.live.contains(id) { state.disposables[id] = disposable }
            return false
        }
        if disposeNow { disposable.dispose() }
    }

    func end(_ id: Int) {
        state.withLock { state in
            state.live.remove(id)
            state.disposables[id] = nil
        }
        if let activity, let token = tokens.withLock({ $0.removeValue(forKey: id) }) {
            activity.effectEnded(token)
        }
    }

    @usableFromInline func disposeAll() {
        let running = state.withLock { state -> [any Disposable] in
            state.disposed = true
            defer { state.disposables = [:] }
            return Array(state.disposables.values)
        }
        for disposable in running {
            disposable.dispose()
        }
    }
}

extension EffectRoute {
    /// A route whose target runs per effect; `run` gets the parameters, the effect (to describe it), and the event
    /// consumer.
    @inlinable static func perEffect<Parameters>(
        extract: @escaping (Effect) -> Parameters?,
        queue: DispatchQueue?,
        run: @escaping (Parameters, Effect, @escaping Consumer<Event>, RunningEffects) -> Void
    ) -> EffectRoute {
        EffectRoute { consumer in
            let activity = EffectActivity.observer
            let running = RunningEffects(activity: activity)
            return ConnectedRoute(
                bind: { effect in
                    guard let parameters = extract(effect) else { return nil }
                    guard let queue else { return { run(parameters, effect, consumer, running) } }
                    let work = UncheckedSendable(value: { run(parameters, effect, consumer, running) })
                    guard let activity else { return { queue.async { work.value() } } }
                    // Work waiting on a queue counts as a running effect until it has run.
                    return {
                        let token = activity.effectBegan(String(reflecting: effect))
                        queue.async {
                            work.value()
                            activity.effectEnded(token)
                        }
                    }
                },
                dispose: running.disposeAll
            )
        }
    }
}
