import MobiusJSON

/// One side of `replay`: an app's update applied to journaled events, from a model it keeps, as the daemon would
/// apply them. The current side is the update the daemon runs; the candidate is the changed one.
///
/// Applying is split in two so that both sides work at once: `begin` hands the events over (an update plugin's
/// side sends its request and returns; a side in this process does the work there), `finish` waits for what each
/// event did.
protocol ReplayUpdate: AnyObject {
    /// Whether the work happens outside this thread (an update plugin): such a side is begun first, so it computes
    /// while a side in this process does.
    var runsElsewhere: Bool { get }
    /// What the side runs, for the report: `update plugin door: /srv/door/update.py`, `built-in store`.
    var label: String { get }
    /// Waits until the side can apply events (an update plugin has answered its handshake).
    ///
    /// - Throws: `ReplayFailure` when it cannot (the plugin did not start, or does not update).
    func ready() throws(ReplayFailure)
    /// The model after the last event applied (before any: the app's starting model).
    var model: JSONValue { get }
    /// Starts again from `model`.
    ///
    /// - Throws: `ReplayFailure` when the app cannot take the model (a typed model of another shape).
    func reset(to model: JSONValue) throws(ReplayFailure)
    /// Runs the app's initiate on the model, effects discarded, as the daemon does when it first starts.
    func initiate() throws(ReplayFailure)
    /// Starts applying `events` in order from `model` (a side in this process applies them here). Without `singly` an update plugin that takes batches gets
    /// them in batches, and only the model after each batch is known; with it every event's model is known.
    func begin(_ events: ArraySlice<ReplayEvent>, singly: Bool)
    /// What each event `begin` was given did, in order; the last step's model is always known.
    ///
    /// - Throws: `ReplayFailure` when the update cannot answer at all (an update plugin that failed for good).
    func finish() throws(ReplayFailure) -> [ReplayStep]
    /// Ends what the side started (an update plugin's process).
    func close()
}

/// A journaled event as `replay` hands it to both sides.
struct ReplayEvent {
    let seq: UInt64
    /// Nanoseconds since 1970 (UTC) when it was journaled.
    let time: Int64
    /// The event's compact JSON, as journaled: what an update plugin is sent.
    let text: ArraySlice<UInt8>
    /// The same, parsed: what a Swift update is given.
    let json: JSONValue
}

/// What one event did on one side.
struct ReplayStep: Equatable {
    enum Outcome: Equatable {
        /// Applied, with these effects in order.
        case applied(effects: [JSONValue])
        /// Rejected (no seq, model unchanged), with the message its sender would get.
        case rejected(String)
    }

    var outcome: Outcome
    /// The model after the event; `nil` inside an update plugin's batch, where only the batch's last is known.
    var model: JSONValue?

    /// Whether `other` did something else: one applies the event and the other rejects it, the effects differ, or
    /// both models are known and differ. Two rejections agree whatever their messages: neither changes anything.
    func differs(from other: ReplayStep) -> Bool {
        switch (outcome, other.outcome) {
        case (.rejected, .rejected): break
        case (.applied(let mine), .applied(let theirs)) where mine == theirs: break
        default: return true
        }
        guard let model, let theirs = other.model else { return false }
        return model != theirs
    }
}
