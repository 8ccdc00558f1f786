import MobiusJSON

/// The one place between "a pass is computed" and "a pass is committed": the journal appends and syncs here.
///
/// `commit` runs on the reactor thread and must call `done` exactly once, on the reactor thread, either before it
/// returns or later (after work on another thread, posted back through the reactor's waker). Until then no new
/// pass starts; requests arriving meanwhile queue up and form the next pass (group commit).
protocol PassCommitHook: AnyObject {
    /// Makes the pass durable (or fails).
    func commit(_ pass: consuming PassCommit, done: @escaping (CommitOutcome) -> Void)
}
