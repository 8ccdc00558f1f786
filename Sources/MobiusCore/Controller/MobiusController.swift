import Dispatch

/// Runs a Mobius loop on its own serial queue, can be stopped and started again (resuming from the last model),
/// and connects views.
///
/// Differences from Mobius.swift, on purpose:
/// - Events sent from other threads pass a bounded mailbox: a producer faster than the loop blocks (backpressure)
///   instead of growing an unbounded queue.
/// - Several views may be connected; `disconnectView()` disconnects all of them.
/// - Views get models on the loop queue unless a `viewQueue` was given; with a view queue, a view that falls behind
///   gets the newest model next (latest-wins) rather than a backlog.
/// - `start()`, `stop()` and `replaceModel(_:)` called from the loop queue are reported as misuse, not deadlocks.
///
/// Misuse (start while running, stop while stopped, connecting a view while running, dispatching while stopped) is
/// reported to `MobiusHooks.errorHandler`.
public final class MobiusController<Model, Event, Effect>: @unchecked Sendable {
    // Kept @inlinable on dispatchEvent, start and what they reach: MobiusBench "controller" row.
    // @unchecked: lifecycle state is in `state` (Locked); loops are created and disposed on `loopQueue`.

    @usableFromInline struct Running {
        @usableFromInline let loop: MobiusLoop<Model, Event, Effect>
        @usableFromInline let mailbox: EventMailbox<Event>
        @usableFromInline let viewConnections: [any Disposable]

        @inlinable init(
            loop: MobiusLoop<Model, Event, Effect>, mailbox: EventMailbox<Event>, viewConnections: [any Disposable]
        ) {
            self.loop = loop
            self.mailbox = mailbox
            self.viewConnections = viewConnections
        }
    }

    @usableFromInline struct State {
        @usableFromInline var modelToStartFrom: Model
        @usableFromInline var views: [AnyConnectable<Model, Event>] = []
        @usableFromInline var running: Running?

        init(modelToStartFrom: Model) {
            self.modelToStartFrom = modelToStartFrom
        }
    }

    @usableFromInline let builder: Mobius.Builder<Model, Event, Effect>
    @usableFromInline let initiate: Initiate<Model, Effect>?
    @usableFromInline let loopQueue: DispatchQueue
    let viewQueue: DispatchQueue?
    @usableFromInline let capacity: Int
    @usableFromInline let queueKey = DispatchSpecificKey<ObjectIdentifier>()
    @usableFromInline let state: Locked<State>

    init(
        builder: Mobius.Builder<Model, Event, Effect>,
        initialModel: Model,
        initiate: Initiate<Model, Effect>?,
        loopQueue target: DispatchQueue,
        viewQueue: DispatchQueue?,
        capacity: Int
    ) {
        self.builder = builder
        self.initiate = initiate
        self.loopQueue = DispatchQueue(label: "MobiusController<\(Model.self)>", target: target)
        self.viewQueue = viewQueue
        self.capacity = capacity
        self.state = Locked(State(modelToStartFrom: initialModel))
        loopQueue.setSpecific(key: queueKey, value: ObjectIdentifier(self))
    }

    deinit {
        if running { stop() }
    }

    /// Whether a loop is running.
    public var running: Bool {
        state.withLock { $0.running != nil }
    }

    /// The running loop's latest model, or the model the next `start()` begins from.
    public var model: Model {
        state.withLock { $0.running?.loop.latestModel ?? $0.modelToStartFrom }
    }

    /// Connects a view: it receives models, and may send events through the consumer it is given.
    ///
    /// Misuse: calling while running.
    public func connectView<View: Connectable>(_ view: View)
    where View.Input == Model, View.Output == Event {
        let ok = state.withLock { state -> Bool in
            guard state.running == nil else { return false }
            state.views.append(AnyConnectable(view))
            return true
        }
        if !ok { MobiusHooks.errorHandler("\(Self.debugTag): cannot connect a view while running; call stop first") }
    }

    /// Disconnects every connected view.
    ///
    /// Misuse: calling while running, or with no view connected.
    public func disconnectView() {
        let problem = state.withLock { state -> String? in
            if state.running != nil { return "cannot disconnect views while running; call stop first" }
            if state.views.isEmpty { return "no view connected, cannot disconnect" }
            state.views.removeAll()
            return nil
        }
        if let problem { MobiusHooks.errorHandler("\(Self.debugTag): \(problem)") }
    }

    /// Replaces the model the next `start()` begins from.
    ///
    /// Misuse: calling while running.
    public func replaceModel(_ model: Model) {
        let ok = state.withLock { state -> Bool in
            guard state.running == nil else { return false }
            state.modelToStartFrom = model
            return true
        }
        if !ok { MobiusHooks.errorHandler("\(Self.debugTag): cannot replace the model while running") }
    }

    /// Sends an event to the running loop. Blocks while the loop's mailbox is full (backpressure).
    ///
    /// Misuse: calling while stopped.
    @inlinable public func dispatchEvent(_ event: Event) {
        guard let mailbox = state.withLock({ $0.running?.mailbox }) else {
            MobiusHooks.errorHandler("\(Self.debugTag): cannot accept events when stopped")
            return
        }
        mailbox.post(event)
    }

    /// Starts a loop from the current model: runs `initiate` (on every start), connects views and event sources.
    ///
    /// Misuse: calling while running, or from the loop queue.
    @inlinable public func start() {
        guard !onLoopQueue else {
            MobiusHooks.errorHandler("\(Self.debugTag): cannot start from the loop queue (an effect handler)")
            return
        }
        loopQueue.sync {
            let stopped = state.withLock { state -> (Model, [AnyConnectable<Model, Event>])? in
                state.running == nil ? (state.modelToStartFrom, state.views) : nil
            }
            guard let (model, views) = stopped else {
                MobiusHooks.errorHandler("\(Self.debugTag): cannot start while already running")
                return
            }
            let running = makeRunning(from: model, views: views)
            state.withLock { $0.running = running }
        }
    }

    /// Stops the loop, keeping its latest model for the next `start()`. Queued events are dropped.
    ///
    /// Misuse: calling while stopped, or from the loop queue.
    public func stop() {
        guard !onLoopQueue else {
            MobiusHooks.errorHandler("\(Self.debugTag): cannot stop from the loop queue (an effect handler)")
            return
        }
        loopQueue.sync {
            let running = state.withLock { state -> Running? in
                guard let running = state.running else { return nil }
                state.modelToStartFrom = running.loop.latestModel
                state.running = nil
                return running
            }
            guard let running else {
                MobiusHooks.errorHandler("\(Self.debugTag): cannot stop a controller that is not running")
                return
            }
            running.mailbox.close()
            running.loop.dispose()
            for connection in running.viewConnections {
                connection.dispose()
            }
        }
    }

    // MARK: - Internals

    @usableFromInline var onLoopQueue: Bool {
        DispatchQueue.getSpecific(key: queueKey) == ObjectIdentifier(self)
    }

    @inlinable func makeRunning(from model: Model, views: [AnyConnectable<Model, Event>]) -> Running {
        let first: First<Model, Effect>
        if let initiate {
            builder.logger?.willInitiate(model: model)
            first = initiate(model)
            builder.logger?.didInitiate(model: model, first: first)
        } else {
            first = First(model: model)
        }
        var startModel = model
        let startEffects = first.start(&startModel)

        let box = MailboxBox<Event>()
        let queueKey = self.queueKey
        let id = ObjectIdentifier(self)
        let loop =
            builder
            .withEventConsumerTransformer { consumer in
                let mailbox = EventMailbox(
                    capacity: self.capacity,
                    loopQueue: self.loopQueue,
                    onLoopQueue: { DispatchQueue.getSpecific(key: queueKey) == id },
                    deliver: consumer
                )
                box.mailbox = mailbox
                return mailbox.post
            }
            .start(from: startModel, effects: startEffects)
        let mailbox = box.mailbox!

        let viewConnections = views.map { view -> any Disposable in
            // Through the mailbox, like every other event: once stop() closes it, a late view event is dropped
            // quietly instead of reaching a disposed loop.
            let connection = view.connect { event in mailbox.post(event) }
            let observer = loop.addObserver(deliverToView(connection))
            return CompositeDisposable(disposables: [observer, connection])
        }
        return Running(loop: loop, mailbox: mailbox, viewConnections: viewConnections)
    }

    @usableFromInline func deliverToView(_ connection: Connection<Model>) -> Consumer<Model> {
        guard let viewQueue else { return connection.accept }
        let latest = LatestValue<Model>(queue: viewQueue, deliver: connection.accept)
        return latest.offer
    }

    @usableFromInline static var debugTag: String {
        "MobiusController<\(Model.self), \(Event.self), \(Effect.self)>"
    }
}

/// Lets the builder's transformer hand the mailbox it creates back to the controller.
@usableFromInline final class MailboxBox<Event> {
    // Kept @usableFromInline: MobiusBench "controller" row (the inlinable makeRunning uses it).
    @usableFromInline var mailbox: EventMailbox<Event>?

    @inlinable init() {}
}

extension Mobius.Builder {
    /// Creates a `MobiusController` that runs loops from this builder on a serial queue of its own.
    ///
    /// - Parameters:
    ///   - initialModel: the model the first `start()` begins from.
    ///   - initiate: run on every `start()`; its effects are dispatched when the loop starts.
    ///   - loopQueue: the queue the controller's serial queue targets (default: a global queue).
    ///   - viewQueue: where views get models; `nil` (default) delivers them on the loop queue.
    ///   - mailboxCapacity: events that may wait for the loop before senders on other threads block.
    public func makeController(
        from initialModel: Model,
        initiate: Initiate<Model, Effect>? = nil,
        loopQueue: DispatchQueue = .global(qos: .userInitiated),
        viewQueue: DispatchQueue? = nil,
        mailboxCapacity: Int = 1024
    ) -> MobiusController<Model, Event, Effect> {
        MobiusController(
            builder: self,
            initialModel: initialModel,
            initiate: initiate,
            loopQueue: loopQueue,
            viewQueue: viewQueue,
            capacity: mailboxCapacity
        )
    }
}
