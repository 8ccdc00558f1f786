import MobiusJSON

/// The events a pass applied, handed to the commit hook before anything of the pass leaves the loop.
struct PassCommit: Sendable {
    /// One applied event.
    struct Entry: Sendable {
        let seq: UInt64
        /// The event as JSON (as it arrived, or encoded by the app's codec).
        let event: JSONValue
    }

    /// The applied events, in seq order (may be empty: a pass of reads only).
    let entries: [Entry]
}

/// How a commit ended.
enum CommitOutcome: Sendable {
    case committed
    /// The pass is undone: every event in it is answered with this code and message, and its reads are answered
    /// against the state before the pass.
    case failed(ErrorCode, String)
}

/// The one place between "a pass is computed" and "a pass is committed": the journal appends and syncs here.
///
/// `commit` runs on the reactor thread and must call `done` exactly once, on the reactor thread, either before it
/// returns or later (after work on another thread, posted back through the reactor's waker). Until then no new
/// pass starts; requests arriving meanwhile queue up and form the next pass (group commit).
protocol PassCommitHook: AnyObject {
    /// Makes the pass durable (or fails).
    func commit(_ pass: PassCommit, done: @escaping (CommitOutcome) -> Void)
}
