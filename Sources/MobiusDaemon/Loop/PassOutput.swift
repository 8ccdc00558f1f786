/// What a pass hands to the control server once it is committed, in order.
enum PassOutput: Sendable {
    /// The reply to the connection's oldest request still waiting for one.
    case reply(ConnectionID, LoopReply)
    /// A monitor trace line.
    case trace(ConnectionID, [UInt8])
    /// A control command to carry out now: its reply comes when its outcome is known.
    case control(ReplyTicket, ControlCommand)
}
