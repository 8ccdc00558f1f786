import Synchronization

/// A running Mobius loop: owns the model, applies the update function to each event, publishes models to
/// observers and hands effects to the effect handler.
///
/// Guarantees:
/// - Events are processed one at a time, in the order they were accepted (FIFO), whichever thread sent them.
/// - The model of a `Next` is published to observers before its effects are dispatched; effects go out in array order.
/// - The loop never re-enters itself: an event sent synchronously from an observer or effect handler is queued
///   and processed after the current one. Whichever thread finds the loop idle runs it until its queue is empty.
///
/// Dispatching an event after `dispose()` is a programmer error reported to `MobiusHooks`.
public final class MobiusLoop<Model, Event, Effect>: Disposable, @unchecked Sendable {
    // Kept @inlinable/@usableFromInline: every MobiusBench row (the loop specializes for the app's types).
    // @unchecked: mutable state lives in `state` (behind a mutex); the user's update, observers and effect handler are only
    // ever called by the single thread that holds the `draining` flag, so they see serial access.

    @usableFromInline enum Work {
        case event(Event)
        case effects([Effect])
        case replay(observer: Int)
    }

    @usableFromInline struct State {
        @usableFromInline var model: Model
        @usableFromInline var pending: [Work] = []
        @usableFromInline var draining = false
        @usableFromInline var observers: [(id: Int, consumer: Consumer<Model>)] = []
        var nextObserverID = 0

        @inlinable init(model: Model, draining: Bool) {
            self.model = model
            self.draining = draining
        }
    }

    @usableFromInline let update: Update<Model, Event, Effect>
    @usableFromInline let logger: AnyMobiusLogger<Model, Event, Effect>?
    @usableFromInline let state: Locked<State>
    @usableFromInline let disposed = Atomic<Bool>(false)
    @usableFromInline var eventConsumer: Consumer<Event> = { _ in }
    @usableFromInline var effectConnection: Connection<Effect>?
    @usableFromInline var modelSourceConnections: [Connection<Model>] = []
    @usableFromInline var eventSourceSubscription: (any Disposable)?
    /// True when no consumer transformer was configured: `dispatchEvent` may then enqueue directly.
    @usableFromInline let directDispatch: Bool

    @inlinable init(
        model: Model,
        effects: [Effect],
        update: Update<Model, Event, Effect>,
        effectHandler: AnyConnectable<Effect, Event>,
        eventSource: AnyEventSource<Event>?,
        modelSources: [AnyConnectable<Model, Event>],
        eventConsumerTransformer: ConsumerTransformer<Event>?,
        logger: AnyMobiusLogger<Model, Event, Effect>?
    ) {
        self.directDispatch = eventConsumerTransformer == nil
        self.update = update
        self.logger = logger
        // Draining from the start holds the loop while it is wired up, so nothing runs before every part is connected.
        self.state = Locked(State(model: model, draining: true))

        let enqueue: Consumer<Event> = { [weak self] event in self?.enqueue(.event(event)) }
        eventConsumer = eventConsumerTransformer?(enqueue) ?? enqueue
        let consumer = eventConsumer
        effectConnection = effectHandler.connect(consumer)
        modelSourceConnections = modelSources.map { $0.connect(consumer) }
        for connection in modelSourceConnections {
            connection.accept(model)
        }
        eventSourceSubscription = eventSource?.subscribe(consumer: consumer)
        drain(first: effects.isEmpty ? nil : .effects(effects), model: model)
    }

    /// The most recent model. Safe to read from any thread.
    public var latestModel: Model {
        state.withLock { $0.model }
    }

    /// Adds an observer. It receives the current model at once, then every new model, on the thread running the loop.
    ///
    /// - Returns: a disposable that removes the observer.
    @discardableResult
    public func addObserver(_ consumer: @escaping Consumer<Model>) -> any Disposable {
        guard !disposed.load(ordering: .relaxed) else {
            MobiusHooks.errorHandler("\(Self.debugTag): cannot add an observer to a disposed loop")
            return EmptyDisposable()
        }
        let id = state.withLock { state -> Int in
            let id = state.nextObserverID
            state.nextObserverID += 1
            state.observers.append((id, consumer))
            return id
        }
        // Replay goes through the queue so it is ordered with models the loop is publishing right now.
        enqueue(.replay(observer: id))
        return AnonymousDisposable { [weak self] in
            self?.state.withLock { $0.observers.removeAll { $0.id == id } }
        }
    }

    /// Sends an event to the loop. Any thread may call this.
    ///
    /// Calling it after `dispose()` is reported to `MobiusHooks.errorHandler`.
    @inlinable public func dispatchEvent(_ event: Event) {
        guard !disposed.load(ordering: .relaxed) else {
            MobiusHooks.errorHandler("\(Self.debugTag): event dispatched after the loop was disposed: \(event)")
            return
        }
        if directDispatch {
            enqueue(.event(event))
        } else {
            eventConsumer(event)
        }
    }

    /// Stops the loop: queued events are dropped, the effect handler and event sources are disconnected.
    /// Idempotent.
    public func dispose() {
        guard disposed.compareExchange(expected: false, desired: true, ordering: .acquiringAndReleasing).exchanged
        else { return }
        let wasIdle = state.withLock { state -> Bool in
            state.pending.removeAll()
            state.observers.removeAll()
            let idle = !state.draining
            state.draining = true  // nothing runs the loop again
            return idle
        }
        // Parts are released by whoever owns the drain: us when idle, else the drainer when it notices.
        if wasIdle {
            releaseParts()
        }
    }

    deinit {
        dispose()
    }

    // MARK: - Running the loop

    @inlinable func enqueue(_ work: Work) {
        // Late events from effect handlers or sources after dispose are dropped, not an error: they race with it.
        guard !disposed.load(ordering: .relaxed) else { return }
        // Fast path: a thread that finds the loop idle runs `work` at once without queueing it.
        let idle = state.withLock { state -> Model? in
            if state.draining {
                state.pending.append(work)
                return nil
            }
            state.draining = true
            return state.model
        }
        if let model = idle {
            drain(first: work, model: model)
        }
    }

    /// Runs `first`, then queued work until the queue is empty. Only the thread that set `draining` calls this.
    @inlinable func drain(first: Work?, model: Model) {
        var model = model
        var batch: [Work] = []
        if let first {
            perform(first, model: &model)
        }
        while true {
            if disposed.load(ordering: .relaxed) {
                releaseParts()
                return
            }
            batch.removeAll(keepingCapacity: true)
            let more = state.withLock { state -> Bool in
                if state.pending.isEmpty {
                    // A dispose() that ran after the check above left releasing to us: keep the drain and let
                    // the next round release the parts.
                    if disposed.load(ordering: .relaxed) { return true }
                    state.draining = false
                    return false
                }
                swap(&state.pending, &batch)
                return true
            }
            guard more else { return }
            for work in batch {
                if disposed.load(ordering: .relaxed) { break }
                perform(work, model: &model)
            }
        }
    }

    @inlinable func perform(_ work: Work, model: inout Model) {
        switch work {
        case .event(let event):
            process(event, model: &model)
        case .effects(let effects):
            dispatch(effects)
        case .replay(let id):
            let observer = state.withLock { state in state.observers.first { $0.id == id }?.consumer }
            observer?(model)
        }
    }

    @inlinable func process(_ event: Event, model: inout Model) {
        logger?.willUpdate(model: model, event: event)
        let next = update.update(model: model, event: event)
        logger?.didUpdate(model: model, event: event, next: next)
        if next.apply(to: &model) {
            let newModel = model
            let observers = state.withLock { state in
                state.model = newModel
                return state.observers
            }
            for observer in observers {
                observer.consumer(newModel)
            }
            for connection in modelSourceConnections {
                connection.accept(newModel)
            }
        }
        if !next.effects.isEmpty {
            dispatch(next.effects)
        }
    }

    @inlinable func dispatch(_ effects: [Effect]) {
        guard let connection = effectConnection else { return }
        for effect in effects {
            if disposed.load(ordering: .relaxed) { return }
            connection.accept(effect)
        }
    }

    @usableFromInline func releaseParts() {
        eventSourceSubscription?.dispose()
        eventSourceSubscription = nil
        for connection in modelSourceConnections {
            connection.dispose()
        }
        modelSourceConnections = []
        effectConnection?.dispose()
        effectConnection = nil
    }

    @usableFromInline static var debugTag: String {
        "MobiusLoop<\(Model.self), \(Event.self), \(Effect.self)>"
    }
}
