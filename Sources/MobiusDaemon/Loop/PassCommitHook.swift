import MobiusJSON

/// The one place between "a pass is computed" and "a pass is committed": the journal appends and syncs here.
///
/// The loop first offers the pass to `commitAtOnce`, for hooks that can finish it on the spot (nothing to wait
/// for: `--ephemeral`, `fsync` `batch` or `never`); that way a pass that commits at once costs no closure. When it
/// answers `nil`, the pass goes to `commit`, which runs on the reactor thread and must call `done` exactly once, on
/// the reactor thread, either before it returns or later (after work on another thread, posted back through the
/// reactor's waker). Until then no new pass starts; requests arriving meanwhile queue up and form the next pass
/// (group commit).
protocol PassCommitHook: AnyObject {
    /// Commits the pass now and gives the outcome, or returns `nil`, leaving `pass` as it was, when it has to
    /// wait for another thread.
    func commitAtOnce(_ pass: inout PassCommit) -> CommitOutcome?
    /// Whether `commitAtOnce` only keeps passes in memory (`--ephemeral`): it cannot fail and needs no wait, so the
    /// loop hands it each pass after the pass's replies are written, off the path of a client waiting for its ack.
    var keepsPassesInMemory: Bool { get }
    /// Makes the pass durable (or fails).
    func commit(_ pass: consuming PassCommit, done: @escaping (CommitOutcome) -> Void)
    /// The lowest seq `log` can still send, or `nil` when nothing is kept for `log` (it is then `Unavailable`).
    var firstLoggedSeq: UInt64? { get }
    /// Whether nothing is kept on disk (`--ephemeral`), for `hello` and `status`.
    var isEphemeral: Bool { get }
    /// The seq after which `log {"models":true}` can give models (the oldest snapshot's, or 0 while the journal holds
    /// seq 1); `nil` when only the head's can be had (nothing is kept to replay from).
    var firstModelBase: UInt64? { get }
    /// Whether a `log {"models":true}` stream takes the models of the events a pass applies (`PassCommit.models`).
    var wantsEventModels: Bool { get }
}

extension PassCommitHook {
    /// A hook that always answers later.
    func commitAtOnce(_ pass: inout PassCommit) -> CommitOutcome? { nil }
    var keepsPassesInMemory: Bool { false }
    var firstModelBase: UInt64? { nil }
    var wantsEventModels: Bool { false }
}
