/// What a connection's earlier lines decided for its later ones: the reply mode, whether it streams, whether it
/// quit, and what its peer may do. Interpreting a line reads and updates it, on whichever thread interprets.
struct RequestState: Sendable {
    let connection: ConnectionID
    let peerUID: UInt32
    /// The loop needs a compact event only as its text (the app's update is a plugin, which reads the text), so the
    /// parsed JSON is let go on the thread that parsed it. Kept, it went to the reactor, whose first touch of each
    /// event's storage, written on the parse thread's core, cost a cache miss, and whose inputs were freed there.
    let eventsAsText: Bool
    var canRead: Bool
    var canWrite: Bool
    var replyMode: ReplyMode = .on
    /// A `subscribe` was handed to the loop.
    var subscribed = false
    /// A `monitor` was handed to the loop.
    var monitoring = false
    /// `quit` was read: no more lines are interpreted.
    var quit = false
    /// A control command (`reload`, `plugin`) was read: no more lines are interpreted until it is answered.
    var awaitingControl = false
}
