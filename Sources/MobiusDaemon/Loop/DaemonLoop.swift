import MobiusCore
import MobiusJSON
import MobiusSystem

/// The Mobius loop of the daemon: owns the model and applies events in passes, on the reactor thread.
///
/// Producers append inputs to one bounded queue (`enqueue`); at the end of each reactor round the loop runs a pass
/// over everything queued. A pass is computed first, as values (new model, seq range, replies, trace lines,
/// effects, stream changes), then handed to the commit hook (the journal), and only when the hook says committed
/// does anything leave: replies and traces to the control server, then the newest model to subscribers, then the
/// effects to their handlers. A failed commit undoes the pass: model, seq, counters and subscriptions stay as they
/// were, every event in it gets the hook's error, and its reads are answered against the state before it.
///
/// Relation to MobiusCore: the update, initiate, `Next`, `First` and effect router are the library's; the pass
/// machinery is the daemon's own, because batching and durability need control over when things go out.
final class DaemonLoop<Model, Event, Effect> {
    let app: DaemonApp<Model, Event, Effect>
    /// The app's update is a plugin: a client's compact event reaches the loop as its text alone
    /// (`RequestState.eventsAsText`), and the app's own update is never called.
    let eventsAsText: Bool
    /// How a pass is computed from its inputs (the app's update among them).
    let rules: PassRules<Model, Event, Effect>
    /// The app's event decoder, held apart from `app` so that using it does not copy the whole app value.
    let decodeEvent: (consuming JSONValue) throws -> Event
    let log: DaemonLog
    let stats: DaemonStats
    /// Counters and latencies for `metrics`.
    let metrics = LoopMetrics()
    /// The committed state. Everything here is owned by the reactor thread.
    // Unchecked, like `phase`, `queue` and `spare`: touched per event; DaemonBench "round-trip" (README "Loop structure").
    @exclusivity(unchecked) var state: LoopState<Model>
    private var audience = Audience()
    /// Where the loop is between passes: starting, idle, or waiting for a pass's outcomes or its commit.
    @exclusivity(unchecked) private var phase = LoopPhase<Model, Event, Effect>.starting

    /// Inputs waiting for the next pass, in arrival order.
    @exclusivity(unchecked) private var queue: [PassInput<Event>] = []
    /// A read that may go before a pass waiting for its update plugin was queued since the queue was last looked at
    /// for them (`EarlyReads`).
    private var earlyReadsQueued = false
    /// The queued events' texts, noted as they are queued, for `externalUpdate` (kept only when there is one).
    private var queuedSegments = EventSegments()
    /// Arrays of earlier passes, kept for their capacity.
    @exclusivity(unchecked) private var spare = PassBuffers<Event>()
    /// How many inputs the queue takes before producers must wait.
    let capacity: Int
    /// Plugins with full queues hold the edges (control-socket clients, D-Bus sources, timers).
    let backpressure: EdgeBackpressure
    /// Producers on the reactor thread waiting for room, told in the order they asked.
    private var waiters = RoomWaiters()
    /// Edge inputs that arrived while `backpressure` held the edges (timer events), queued once it lets go.
    private var heldEdgeInputs: [PassInput<Event>] = []
    /// An edge inbox (D-Bus) was left undrained because `backpressure` held the edges.
    private var edgeInboxesHeld = false
    /// Whether the loop has asked `backpressure` to say when it lets go of the edges, and whether it has.
    private var release = EdgeRelease.notAsked
    /// Inboxes of producers on other threads, and whether each may have items.
    private var inboxes: [AttachedInbox] = []
    private var inboxesWithItems = false

    /// The journal: between computing and committing a pass, and the source of `log`; `nil` keeps nothing and
    /// commits at once.
    let commitHook: (any PassCommitHook)?
    /// Asks the reactor for another round without sleeping.
    let requestAnotherRound: () -> Void
    /// Frees a big pass's inputs on the thread that parsed most of them (see `recycle`); `nil` frees them here.
    let releaseElsewhere: ((UncheckedSendable<[PassInput<Event>]>) -> Void)?
    /// Where committed passes go; `nil` until `start`.
    private var outlets: LoopOutlets<Model, Event, Effect>?
    /// Whether `start` has finished: no pass runs before the app's initiate has.
    var started: Bool { phase.hasStarted }
    /// Journaled events waiting to be replayed through the update plugin when the loop starts.
    var pendingReplay: [(seq: UInt64, event: JSONValue)] = []

    /// Passes run back to back at the end of one round before the reactor looks at its descriptors again.
    static var maxPassesPerRound: Int { 8 }

    /// - Parameters:
    ///   - commitHook: the journal; `nil` keeps nothing (no `log`) and commits each pass at once.
    ///   - requestAnotherRound: asks the reactor for another round without sleeping.
    ///   - releaseElsewhere: frees a big pass's inputs on another thread; `nil` frees them on the loop's.
    init(
        app: DaemonApp<Model, Event, Effect>, capacity: Int, backpressure: EdgeBackpressure, stats: DaemonStats,
        log: DaemonLog, epoch: String, version: String, commitHook: (any PassCommitHook)?,
        requestAnotherRound: @escaping () -> Void,
        releaseElsewhere: ((UncheckedSendable<[PassInput<Event>]>) -> Void)?
    ) {
        self.commitHook = commitHook
        self.requestAnotherRound = requestAnotherRound
        self.releaseElsewhere = releaseElsewhere
        self.app = app
        self.backpressure = backpressure
        self.eventsAsText = app.updatePlugin != nil
        self.decodeEvent = app.codec.decodeEvent
        self.capacity = max(1, capacity)
        self.stats = stats
        self.log = log
        self.rules = PassRules(app: app, epoch: epoch, version: version, ephemeral: commitHook?.isEphemeral ?? false)
        self.state = LoopState(model: app.initialModel)
    }

    // MARK: - Producers

    /// How many more inputs the queue takes now from plugins and effect handlers.
    var room: Int { max(0, capacity - queue.count) }

    /// How many more inputs the queue takes now from the edges: none while a plugin's full queue holds them.
    var edgeRoom: Int { backpressure.isHolding ? 0 : room }

    /// Appends an input. Producers check `room` first; effect handlers running inside a pass's dispatch may go
    /// over the bound, since they cannot wait (their additions are bounded by one pass's effects).
    func enqueue(_ input: PassInput<Event>) {
        noteForExternalUpdate(input)
        noteArrival()
        queue.append(input)
    }

    /// Notes when the queue starts to hold inputs again: the next pass's latency counts from then.
    private func noteArrival() {
        if queue.isEmpty { metrics.firstQueuedAt = SystemProcess.monotonicNanoseconds() }
    }

    /// Notes a queued input's part in `queuedSegments`: an event's text, or the end of a segment.
    private func noteForExternalUpdate(_ input: PassInput<Event>) {
        guard eventsAsText else { return }
        switch input {
        case .event(let queued):
            let text = Self.compactText(queued.text) { queued.json ?? rules.encodeEvent(queued.event) }
            withQueuedSegments { $0.append(text) }
        case .request(let request, _):
            noteForExternalUpdate(request)
        default:
            break
        }
    }

    /// Runs `body` on `queuedSegments` moved out of the object: its arrays grow and are released there, which the
    /// optimizer cannot see through, so changed in place every access to it would be checked for exclusivity at run
    /// time (docs/architecture.md, "Exclusivity").
    private func withQueuedSegments<T>(_ body: (inout EventSegments) -> T) -> T {
        var segments = EventSegments()
        swap(&segments, &queuedSegments)
        defer { swap(&segments, &queuedSegments) }
        return body(&segments)
    }

    /// An event's compact JSON text: the text it arrived as, else its JSON encoded.
    private static func compactText(_ text: ArraySlice<UInt8>?, else json: () -> JSONValue) -> ArraySlice<UInt8> {
        text ?? ArraySlice(json().encoded())
    }

    private func noteForExternalUpdate(_ request: LoopRequest) {
        guard eventsAsText else { return }
        switch request {
        case .model, .modelAt, .subscribe: withQueuedSegments { $0.cut() }
        default: break
        }
    }

    /// Queues a client's input, decoding its event with the app's codec (a failure answers `InvalidEvent`).
    func enqueue(client input: consuming ClientInput) {
        noteArrival()
        // `consume`: the payload moves into the queue instead of being copied and the original destroyed.
        switch consume input {
        case .event(let json, let text, let ticket):
            do {
                // With the text there is no need to keep the JSON too: the journal records the text, and a
                // monitor's trace line parses it again (one reference less to copy per event on the hot path).
                // (Not a `?:` with `nil`: JSONValue takes the nil literal, so that would keep a JSON null.)
                var kept: JSONValue?
                if text == nil { kept = json }
                let noted = !eventsAsText ? nil : Self.compactText(text) { json ?? .null }
                // No JSON: the event came as text alone, for the update plugin, and the app's event is not read.
                let event = try decodeEvent(json ?? .null)
                if let noted { withQueuedSegments { $0.append(noted) } }
                queue.append(.event(event, json: kept, text: text, source: .client, ticket: ticket))
            } catch {
                queue.append(
                    .rejected(
                        .invalidEvent, "the app rejected the event: \(EventRejection.message(for: error))", ticket))
            }
        case .request(let request, let ticket):
            noteForExternalUpdate(request)
            if eventsAsText, EarlyReads.mayGoFirst(request) { earlyReadsQueued = true }
            queue.append(.request(request, ticket))
        case .rejected(let code, let message, let ticket): queue.append(.rejected(code, message, ticket))
        case .reply(let line, let ticket): queue.append(.reply(line, ticket))
        case .disconnected(let connection): queue.append(.disconnected(connection))
        }
    }

    /// The control server's way in.
    var port: LoopPort {
        LoopPort(
            room: { [unowned self] in edgeRoom }, commandRoom: { [unowned self] in room },
            enqueue: { [unowned self] in enqueue(client: $0) },
            notifyWhenRoom: { [unowned self] in notifyWhenEdgeRoom($0) }, eventsAsText: eventsAsText)
    }

    /// The plugin host's way in: plugin events use the loop's plain room (they are not an edge), are decoded with
    /// the app's codec (a rejection is counted and logged), and state changes are traced to monitors.
    var pluginPort: PluginPort {
        PluginPort(
            hasRoom: { [unowned self] in room > 0 }, whenRoom: { [unowned self] in notifyWhenRoom($0) },
            deliver: { [unowned self] json, runner in deliverPluginEvent(json, from: runner) },
            stateChanged: { [unowned self] runner in tracePluginState(runner) })
    }

    private func deliverPluginEvent(_ json: JSONValue, from runner: PluginRunner) {
        do {
            enqueue(.event(try decodeEvent(json), json: json, source: .plugin, ticket: nil))
        } catch {
            stats.rejectedUndecodable(from: .plugin)
            log.limited(
                "event rejected", .warning,
                "event from plugin \(runner.name) rejected: \(EventRejection.message(for: error))")
        }
    }

    private func tracePluginState(_ runner: PluginRunner) {
        let monitors = audience.monitors
        guard !monitors.isEmpty else { return }
        let reason = runner.state == .running ? nil : runner.lastProblem
        trace(LoopLines.pluginTrace(name: runner.name, state: runner.state.rawValue, reason: reason), to: monitors)
    }

    /// Sends a trace line to these monitors (none before the loop has started).
    func trace(_ line: [UInt8], to monitors: [ConnectionID]) {
        outlets?.sink.trace(line, to: monitors)
    }

    /// Calls `resume` once, after the next pass has made room (for plugins and effect handlers).
    func notifyWhenRoom(_ resume: @escaping () -> Void) {
        var moved = RoomWaiters()
        swap(&moved, &waiters)
        moved.plugins.append(resume)
        swap(&moved, &waiters)
    }

    /// Calls `resume` once the edges have room again: after a pass has made room and no plugin holds them.
    func notifyWhenEdgeRoom(_ resume: @escaping () -> Void) {
        var moved = RoomWaiters()
        swap(&moved, &waiters)
        moved.edges.append(resume)
        swap(&moved, &waiters)
        if backpressure.isHolding { awaitRelease() }
    }

    /// Queues an input from an edge that cannot wait to be asked (a timer's event), or holds it while the edges
    /// are held.
    func enqueue(edge input: PassInput<Event>) {
        guard backpressure.isHolding else {
            enqueue(input)
            return
        }
        heldEdgeInputs.append(input)
        awaitRelease()
    }

    /// Asks `backpressure` to say when it lets go of the edges (once, however many wait).
    private func awaitRelease() {
        guard case .notAsked = release else { return }
        release = .awaited
        backpressure.notifyWhenReleased { [unowned self] in
            release = .arrived
            requestAnotherRound()
        }
    }

    /// The edges were let go: what they held goes in, in the order it came, and their waiters are told.
    private func reopenEdges() {
        guard case .arrived = release else { return }
        release = .notAsked
        let held = heldEdgeInputs
        heldEdgeInputs.removeAll()
        for input in held { enqueue(input) }
        if edgeInboxesHeld {
            edgeInboxesHeld = false
            inboxesWithItems = true
        }
        tellRoomWaiters()
    }

    /// Connects a producer on another thread. Its items are turned into inputs (`convert`; `nil` drops one, e.g.
    /// an event the app's codec rejected, which `convert` reports itself).
    func attach<Item>(_ inbox: EventInbox<Item>, convert: @escaping (Item) -> PassInput<Event>?) {
        inboxes.append(
            AttachedInbox(
                kind: inbox.kind, depth: { inbox.depth }, dropped: { inbox.droppedCount },
                drain: { [unowned self] limit in
                    let items = inbox.take(upTo: limit)
                    for item in items {
                        if let input = convert(item) {
                            noteForExternalUpdate(input)
                            noteArrival()
                            queue.append(input)
                        }
                    }
                    return items.count
                }))
    }

    /// Connects a producer of client inputs on another thread (D-Bus `Send`): its items take the way a control-socket
    /// connection's lines do (`enqueue(client:)`: decoded by the app's codec, answered through their tickets).
    func attach(clientInbox inbox: EventInbox<ClientInput>) {
        inboxes.append(
            AttachedInbox(
                kind: inbox.kind, depth: { inbox.depth }, dropped: { inbox.droppedCount },
                drain: { [unowned self] limit in
                    let items = inbox.take(upTo: limit)
                    for item in items { enqueue(client: item) }
                    return items.count
                }))
    }

    /// An attached inbox has new items (posted to the reactor by the inbox's wake).
    func inboxHasItems() {
        inboxesWithItems = true
    }

    private func drainInboxes() {
        guard inboxesWithItems else { return }
        inboxesWithItems = false
        for inbox in inboxes {
            if inbox.kind.isEdge && backpressure.isHolding {
                edgeInboxesHeld = true  // come back when the edges are let go
                awaitRelease()
                continue
            }
            let limit = room
            guard limit > 0 else {
                inboxesWithItems = true  // come back when a pass has made room
                return
            }
            if inbox.drain(limit) == limit { inboxesWithItems = true }
        }
    }

    // MARK: - Start

    /// Connects the loop to `outlets` and runs the app's initiate on the model, dispatching its effects; passes run
    /// from then on. With an update plugin, the journal's replay and initiate answer later; `whenStarted` is called once
    /// they have, with why the loop cannot start (the replay failed for good), or `nil`; the observer gets the
    /// state it started at first.
    func start(_ outlets: LoopOutlets<Model, Event, Effect>, then whenStarted: @escaping (String?) -> Void = { _ in }) {
        self.outlets = outlets
        let done = { [self] (problem: String?) in
            if problem == nil { outlets.observer?.committed(seq: state.seq, model: currentModelJSON()) }
            whenStarted(problem)
        }
        if let externalUpdate = outlets.externalUpdate {
            replayThroughExternalUpdate(externalUpdate) { [self] problem in
                guard let problem else {
                    initiate(externalUpdate) { done(nil) }
                    return
                }
                done(problem)
            }
            return
        }
        replayAtOnce(pendingReplay)
        pendingReplay = []
        if let initiate = app.initiate {
            begin(with: initiate(state.model))
        } else {
            phase = .idle
        }
        done(nil)
    }

    /// The `status` members of the parts around the loop (none before it has started).
    func statusMembers() -> [(String, JSONValue)] {
        outlets?.statusMembers() ?? []
    }

    /// Why the update plugin cannot replay the journal now (it ended and waits for its restart), while the loop has
    /// not started; `nil` otherwise.
    var recoveryTrouble: String? {
        guard !started else { return nil }
        return outlets?.externalUpdate?.trouble()
    }

    private func initiate(_ externalUpdate: ExternalUpdate<Model, Event, Effect>, then done: @escaping () -> Void) {
        externalUpdate.initiate(state.model) { [self] outcome in
            switch outcome {
            case .success(let first): begin(with: first)
            case .failure(let unavailable):
                log.error("initiate: \(unavailable.message); starting from the model as it is, without effects")
                phase = .idle
            }
            done()
            requestAnotherRound()
        }
    }

    private func begin(with first: First<Model, Effect>) {
        let effects = first.start(&state.model)
        state.modelJSON = nil
        phase = .idle
        outlets?.dispatcher?.dispatch(effects, trace: nil)
    }

    // MARK: - Passes

    /// Whether inputs wait for a pass.
    var hasQueuedInputs: Bool { !queue.isEmpty || inboxesWithItems }

    /// Whether a pass is waiting for its commit or for its outcomes, or the loop has not started.
    var isCommitting: Bool { !phase.isIdle }

    /// Runs passes over the queue until it is empty, a commit is pending, or the round's share is used up.
    func runPasses() {
        var passes = 0
        reopenEdges()
        drainInboxes()
        answerWhileRecoveryStalls()
        answerEarlyReads()
        while !queue.isEmpty && phase.isIdle {
            guard passes < Self.maxPassesPerRound else {
                requestAnotherRound()
                return
            }
            passes += 1
            runPass()
            tellRoomWaiters()
            drainInboxes()
        }
    }

    /// While the journal's replay waits for an update plugin that has failed (and is restarting), what clients
    /// queue is answered at once: `Unavailable` with the cause, `status` as usual. Before any trouble, requests
    /// wait for the start as during any start-up.
    private func answerWhileRecoveryStalls() {
        guard !queue.isEmpty, let cause = recoveryTrouble else { return }
        let inputs = takeQueue()
        _ = withQueuedSegments { $0.take() }
        finish(compute(inputs, mode: .recovering(cause)))
        recycle(inputs)
        tellRoomWaiters()
    }

    /// While a pass waits for its update plugin, answers the `status`, `ping` and `hello` requests queued that
    /// need not wait for it (`EarlyReads`) against the committed state.
    private func answerEarlyReads() {
        guard earlyReadsQueued, case .preparing(let pass) = phase else { return }
        earlyReadsQueued = false
        let early = EarlyReads.take(from: &queue, pass: pass)
        guard !early.isEmpty else { return }
        finish(compute(early, mode: .normal))
        tellRoomWaiters()
    }

    private func tellRoomWaiters() {
        guard !waiters.isEmpty else { return }
        if !waiters.plugins.isEmpty, room > 0 {
            let waiting = waiters.plugins
            waiters.plugins.removeAll()
            for resume in waiting { resume() }
        }
        guard !waiters.edges.isEmpty else { return }
        guard edgeRoom > 0 else {
            // Waiting for the queue, they now wait for the plugins too: without this they would be told only
            // after a pass, and there may be none.
            if backpressure.isHolding { awaitRelease() }
            return
        }
        let waiting = waiters.edges
        waiters.edges.removeAll()
        for resume in waiting { resume() }
    }

    /// The queued inputs, leaving the queue empty.
    private func takeQueue() -> [PassInput<Event>] {
        var inputs = spare.takeQueue()
        swap(&inputs, &queue)
        metrics.firstQueuedAt = 0
        return inputs
    }

    private func runPass() {
        let queuedAt = metrics.firstQueuedAt
        let inputs = takeQueue()
        if eventsAsText, !queuedSegments.isEmpty {
            let segments = withQueuedSegments { $0.take() }
            if let externalUpdate = outlets?.externalUpdate {
                prepareThenCommit(inputs, externalUpdate: externalUpdate, segments: segments, queuedAt: queuedAt)
                return
            }
        }
        commit(inputs, work: compute(inputs, mode: .normal, queuedAt: queuedAt))
    }

    /// A pass of an app whose update is a plugin: its outcomes first (on the plugin's time), then the pass.
    private func prepareThenCommit(
        _ inputs: [PassInput<Event>], externalUpdate: ExternalUpdate<Model, Event, Effect>,
        segments: [[ArraySlice<UInt8>]], queuedAt: UInt64
    ) {
        phase = .preparing(inputs: inputs)
        earlyReadsQueued = false  // those queued so far are in this pass
        externalUpdate.prepare(state.model, segments) { [self] outcome in
            phase = .idle
            switch outcome {
            case .success(let outcomes):
                commit(
                    inputs,
                    work: compute(inputs, mode: .normal, prepared: PreparedOutcomes(outcomes), queuedAt: queuedAt))
            case .failure(let unavailable):
                finish(compute(inputs, mode: .rejectingEvents(.unavailable, unavailable.message), queuedAt: queuedAt))
                recycle(inputs)
            }
            requestAnotherRound()
        }
    }

    /// Hands a computed pass to the commit hook (if any) and finishes it.
    private func commit(_ inputs: consuming [PassInput<Event>], work: consuming PassWork<Model, Effect>) {
        guard let hook = commitHook else {
            finish(work)
            recycle(inputs)
            return
        }
        var pass = work.journal.take() ?? PassCommit()
        if hook.keepsPassesInMemory {
            // Nothing can fail: the replies go first, the bookkeeping after (a one-at-a-time client's next request
            // waits only for the former).
            finish(work)
            _ = hook.commitAtOnce(&pass)
            keepRecords(&pass)
            recycle(inputs)
            return
        }
        // Only passes with events are journaled, and timed.
        let commitStarted = pass.seqs == nil ? 0 : SystemProcess.monotonicNanoseconds()
        if let outcome = hook.commitAtOnce(&pass) {
            if commitStarted != 0 {
                metrics.commitLatency.observe(since: commitStarted, now: SystemProcess.monotonicNanoseconds())
            }
            keepRecords(&pass)
            end(inputs: inputs, work: work, outcome)
            return
        }
        phase = LoopPhase(committing: inputs, work: work)
        hook.commit(pass) { [self] outcome in
            guard case .committing(let inputs, let work) = phase else {
                preconditionFailure("a commit was answered with no pass waiting for it")
            }
            if commitStarted != 0 {
                metrics.commitLatency.observe(since: commitStarted, now: SystemProcess.monotonicNanoseconds())
            }
            phase = .idle
            end(inputs: inputs, work: work, outcome)
            // Inputs that queued meanwhile form the next pass. Only then another round: the hook answers from a
            // reactor handler, and that round's end runs the passes anyway.
            if hasQueuedInputs { requestAnotherRound() }
        }
    }

    /// Finishes a pass its hook has answered: committed, or undone (every event gets the hook's error).
    private func end(
        inputs: consuming [PassInput<Event>], work: consuming PassWork<Model, Effect>, _ outcome: CommitOutcome
    ) {
        switch outcome {
        case .committed:
            finish(work)
            recycle(inputs)
        case .failed(let code, let message):
            // Events nobody can send again (from plugins, effect handlers, timers, D-Bus: no reply ticket) go back
            // in the queue for a later pass, which the journal tries a moment later; an effect's result or failure
            // report dropped here would be an effect silently lost. Clients get the error and decide.
            var answered: [PassInput<Event>] = []
            var again: [PassInput<Event>] = []
            for input in inputs {
                if case .event(let queued) = input, queued.ticket == nil {
                    again.append(input)
                } else {
                    answered.append(input)
                }
            }
            finish(compute(answered, mode: .rejectingEvents(code, message), queuedAt: work.queuedAt))
            recycle(answered)
            for input in again { enqueue(input) }
        }
    }

    /// Releases a pass's inputs. A big pass's inputs were mostly parsed on the parse thread: they go back there to
    /// be freed, because glibc frees memory of another thread's arena under that arena's lock, which made both
    /// threads wait on each other in a flood. Not so with an update plugin: its client events hold only slices of
    /// their batch's bytes, and the parse thread releasing them while the reactor retained the next pass's slices
    /// of the same batch made both change one reference count.
    private func recycle(_ inputs: consuming [PassInput<Event>]) {
        var inputs = inputs
        if inputs.count >= 256, !eventsAsText, let releaseElsewhere {
            spare.reserveQueue(inputs.count)
            releaseElsewhere(UncheckedSendable(value: inputs))
            return
        }
        spare.keep(&inputs)
    }

    /// Keeps the records buffer of a pass committed at once for the next pass.
    private func keepRecords(_ pass: inout PassCommit) {
        var records = pass.takeRecords()
        spare.keep(&records)
    }

    /// Makes a computed pass the loop's state and hands out what it produced, in order: replies and traces, the
    /// newest model, effects.
    private func finish(_ work: consuming PassWork<Model, Effect>) {
        var work = work
        swap(&state, &work.state)
        guard let outlets else { preconditionFailure("a pass finished before the loop started") }
        // Before the replies: a D-Bus caller answered next reads the state its event led to.
        if let observer = outlets.observer, state.seq != work.state.seq {
            observer.committed(seq: state.seq, model: work.modelChanged ? currentModelJSON() : nil)
        }
        if !work.streamChanges.isEmpty { apply(work.streamChanges, sink: outlets.sink) }
        for rejection in work.unansweredRejections {
            stats.sourceEventsRejected.add(1, ordering: .relaxed)
            log.limited(
                "event rejected", .warning, "event from \(rejection.source.rawValue) rejected: \(rejection.message)",
                fields: LogFields(source: rejection.source.rawValue))
        }
        // Counted before the replies go: a `metrics` in this pass is answered as they are delivered.
        if work.acceptedElsewhere.total != 0 || work.rejectedBy != nil {
            metrics.count(work.acceptedElsewhere, rejected: work.rejectedBy ?? [:])
        }
        // With more input queued, the next pass (and its commit) goes first; the replies go at the end of the round.
        outlets.sink.deliver(work.outputs, writeNow: queue.isEmpty)
        if work.queuedAt != 0 { metrics.passEnded(queuedAt: work.queuedAt) }
        spare.keep(&work.outputs)
        if work.modelChanged && !audience.isEmpty { publish(to: outlets.sink) }
        if !work.effects.isEmpty, let dispatcher = outlets.dispatcher {
            let sink = outlets.sink
            let monitors = audience.monitors
            dispatcher.dispatch(
                work.effects,
                trace: monitors.isEmpty
                    ? nil
                    : { effect in sink.trace(LoopLines.effectTrace(effect), to: monitors) }
            )
        }
    }

    /// Publishes the current model to subscriptions and monitors.
    private func publish(to sink: any LoopOutputSink) {
        guard let modelValue = currentModelJSON() else { return }
        let seq = state.seq
        var moved = Audience()
        swap(&moved, &audience)
        let deliveries = moved.subscriptions.publish(seq: seq, model: modelValue)
        let monitors = moved.monitors
        swap(&moved, &audience)
        for delivery in deliveries {
            sink.publishModel(LoopLines.modelChanged(seq: seq, model: delivery.value), to: delivery.connections)
        }
        if !monitors.isEmpty {
            sink.trace(LoopLines.modelTrace(seq: seq, model: modelValue), to: monitors)
        }
    }

    /// The JSON form of the committed model (cached per model); `nil` if the app cannot encode it.
    func currentModelJSON() -> JSONValue? {
        rules.modelJSON(&state)
    }

    // MARK: - What a pass starts from

    /// Computes a pass over `inputs` from the committed state (`PassRules.compute`).
    ///
    /// - Parameter queuedAt: when the pass's first input was queued, for its latency (0: not measured).
    func compute(
        _ inputs: [PassInput<Event>], mode: PassWork<Model, Effect>.Mode,
        prepared: PreparedOutcomes<Model, Effect>? = nil, queuedAt: UInt64 = 0
    ) -> PassWork<Model, Effect> {
        var start = PassStart(recovery: started ? nil : recoveryTrouble ?? "replaying the journal")
        let reads = PassRules<Model, Event, Effect>.reads(of: inputs)
        if reads.log || reads.status {
            var outside = OutsideReads()
            if reads.log {
                outside.firstLoggedSeq = commitHook?.firstLoggedSeq
                outside.modelLogBase =
                    eventsAsText
                    ? .unavailable(HistoryProblem.updatePluginReason)
                    : commitHook?.firstModelBase.map { .after($0) } ?? .head
            }
            if reads.status { outside.surroundings = statusSurroundings() }
            start.outside = outside
        }
        start.recordModels = commitHook?.wantsEventModels ?? false
        var work = rules.compute(
            inputs, state: state, audience: audience, from: start, outputs: spare.takeOutputs(),
            records: commitHook == nil ? nil : spare.takeRecords(), mode: mode, prepared: prepared)
        work.queuedAt = queuedAt
        return work
    }

    /// What `status` reports from outside the pass, now.
    private func statusSurroundings() -> StatusSurroundings {
        StatusSurroundings(
            uptimeSeconds: Double(SystemProcess.monotonicNanoseconds() - stats.startedAt) / 1e9,
            rejectedFromOtherSources: stats.sourceEventsRejected.load(ordering: .relaxed),
            unhandledEffects: stats.unhandledEffects.load(ordering: .relaxed),
            libraryErrors: stats.libraryErrors.load(ordering: .relaxed), capacity: capacity,
            waiting: queueDepths(), dropped: droppedByInboxes(), members: statusMembers())
    }

    /// Inputs waiting outside a pass, by source kind (the queue, edge inputs held back, and the inboxes).
    func queueDepths() -> [EventSourceKind: Int] {
        var depths: [EventSourceKind: Int] = [:]
        for input in queue { depths[input.sourceKind, default: 0] += 1 }
        for input in heldEdgeInputs { depths[input.sourceKind, default: 0] += 1 }
        for inbox in inboxes { depths[inbox.kind, default: 0] += inbox.depth() }
        return depths
    }

    /// Events inboxes refused because they were full (`dropNewest` producers), by source kind; kinds that dropped
    /// nothing are left out.
    func droppedByInboxes() -> [EventSourceKind: UInt64] {
        var dropped: [EventSourceKind: UInt64] = [:]
        for inbox in inboxes {
            let count = inbox.dropped()
            if count > 0 { dropped[inbox.kind, default: 0] += count }
        }
        return dropped
    }

    /// Who streams what as of the committed state, for a pass to start from.
    var audienceBeforePass: Audience { audience }
    var monitorList: [ConnectionID] { audience.monitors }
    func isSubscribed(_ connection: ConnectionID) -> Bool { audience.subscriptions.contains(connection) }

    /// Applies a finished pass's changes to who streams what, in order, then starts its `log` streams.
    private func apply(_ changes: [StreamChange], sink: any LoopOutputSink) {
        var moved = Audience()
        swap(&moved, &audience)
        for change in changes {
            switch change {
            case .subscribe(let connection, let path, let value, let seq):
                moved.subscriptions.add(connection, path: path, seq: seq, value: value)
            case .monitor(let connection):
                if !moved.monitors.contains(connection) { moved.monitors.append(connection) }
            case .log:
                continue
            case .disconnect(let connection):
                moved.subscriptions.remove(connection)
                moved.monitors.removeAll { $0 == connection }
            }
        }
        swap(&moved, &audience)
        for case .log(let connection, let start) in changes { sink.startLog(connection, start) }
    }
}
