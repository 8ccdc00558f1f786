/// What a connection's earlier lines decided for its later ones: the reply mode, whether it streams, whether it
/// quit, and what its peer may do. Interpreting a line reads and updates it, on whichever thread interprets.
struct RequestState: Sendable {
    let connection: ConnectionID
    let peerUID: UInt32
    var canRead: Bool
    var canWrite: Bool
    var replyMode: ReplyMode = .on
    /// A `subscribe` was handed to the loop.
    var subscribed = false
    /// A `monitor` was handed to the loop.
    var monitoring = false
    /// `quit` was read: no more lines are interpreted.
    var quit = false
}
