import MobiusJSON

/// How a commit ended.
enum CommitOutcome: Sendable {
    case committed
    /// The pass is undone: every event in it is answered with this code and message, and its reads are answered
    /// against the state before the pass.
    case failed(ErrorCode, String)
}
