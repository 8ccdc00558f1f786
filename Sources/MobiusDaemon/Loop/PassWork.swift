import MobiusJSON

/// A pass being computed: the state it leads to and everything it will hand out, all as values. Nothing here
/// reaches a client, the app's effect handlers or the journal until the pass is committed.
struct PassWork<Model, Effect> {
    /// How a pass is computed.
    enum Mode {
        /// Apply events.
        case normal
        /// The commit failed: every event gets this error, reads see the state before the pass.
        case rejectingEvents(ErrorCode, String)
        /// Recovery is stalled (the update plugin cannot replay the journal yet): events and every request that
        /// needs the model or the seq get `Unavailable` with this cause; `status` is answered.
        case recovering(String)
    }

    var state: LoopState<Model>
    var outputs: [PassOutput] = []
    /// The applied events as records for the commit hook (only when there is a hook).
    var journal: PassCommit?
    var effects: [Effect] = []
    var streamChanges: [StreamChange] = []
    /// Monitors as of the current point of the pass (those before it, plus and minus this pass's changes).
    var monitors: [ConnectionID]
    /// Subscriptions as of the current point of the pass.
    var subscriberCount: Int
    var modelChanged = false
    /// The model after each applied event goes to the journal with its record, for `log {"models":true}` streams at
    /// the head: from the pass's start when one streams, else from the first such request in the pass.
    var recordModels = false
    /// The events' outcomes when the update is external (an update plugin), taken in order instead of calling it.
    var prepared: PreparedOutcomes<Model, Effect>?
    /// Events from sources without a reply ticket that were rejected: counted and logged when the pass ends
    /// (once, whichever way it ends), since nobody waits for an answer.
    var unansweredRejections: [(source: EventSourceKind, message: String)] = []
    /// For `status`, in a pass that has one: the inputs after the current one, by kind, counted down as the pass
    /// goes (one walk, however many `status` requests the pass has).
    var notYetReached: [EventSourceKind: Int]?
    /// Applied events from sources other than clients, by source, for `metrics` (clients' are the rest).
    var acceptedElsewhere = SourceCounts()
    /// Rejected events and event lines by code and source, for `metrics`; `nil` until the first.
    var rejectedBy: [RejectionKey: UInt64]?
    /// When the pass's first input was queued (monotonic nanoseconds), for its latency; 0: not measured.
    var queuedAt: UInt64 = 0

    init(state: consuming LoopState<Model>, audience: borrowing Audience) {
        self.state = consume state
        self.monitors = audience.monitors
        self.subscriberCount = audience.subscriptions.count
    }
}
