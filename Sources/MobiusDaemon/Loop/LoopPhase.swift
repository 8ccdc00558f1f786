/// Where the loop is in its cycle: one pass at a time is computed, then committed, then finished.
///
/// A pass waiting for its commit is held here, so that "committing" without a pass, or a pass held while idle,
/// cannot be written.
enum LoopPhase<Model, Event, Effect> {
    /// The app's initiate (with an update plugin: the journal's replay, then initiate) has not finished; no pass
    /// runs yet.
    case starting
    /// Between passes: the end of a round runs one over whatever is queued.
    case idle
    /// An update plugin computes the outcomes of the pass over `inputs`; early reads of other connections are
    /// answered meanwhile (`EarlyReads`).
    indirect case preparing(inputs: [PassInput<Event>])
    /// A computed pass waits for the journal's commit. Indirect, so that the phase is one word: the checks of it
    /// on every round copy no pass.
    indirect case committing(inputs: [PassInput<Event>], work: PassWork<Model, Effect>)

    /// `committing`, built here rather than where the loop waits, so that its box is allocated under a frame that
    /// LeakSanitizer's suppression names: LSan cannot see the box, whose case is in spare bits of its pointer.
    init(committing inputs: consuming [PassInput<Event>], work: consuming PassWork<Model, Effect>) {
        self = .committing(inputs: inputs, work: work)
    }

    /// Whether `start` has finished.
    var hasStarted: Bool {
        if case .starting = self { return false }
        return true
    }

    /// Whether a pass may run now.
    var isIdle: Bool {
        if case .idle = self { return true }
        return false
    }
}
