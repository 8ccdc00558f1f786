import MobiusJSON

/// Identifies a client connection for the life of the daemon (never reused).
typealias ConnectionID = UInt64

/// Which event replies a connection wants (`reply on|errors|off`).
enum ReplyMode: Sendable {
    /// Acks and errors.
    case on
    /// Errors only.
    case errors
    /// Neither.
    case off
}

/// The reply a client is owed for one request line.
struct ReplyTicket: Sendable {
    let connection: ConnectionID
    /// 1-based line number on the connection, for error replies.
    let line: Int
    let mode: ReplyMode
}

/// A request the loop answers in order with the events around it.
enum LoopRequest: Sendable {
    case model(path: JSONPointer?)
    case subscribe(path: JSONPointer?)
    case ping
    case hello
    case status
    case monitor
}

/// What the I/O thread (and effect handlers) hand to the loop thread.
enum LoopInput<Event> {
    /// An event from inside the daemon (effect handlers); `ticket` is set when a client is owed a reply.
    case event(Event, ReplyTicket?)
    /// A client's event line, not yet parsed: the loop parses and decodes it, answering `InvalidJSON` or
    /// `InvalidEvent` itself when it cannot.
    case eventText([UInt8], ReplyTicket)
    case request(LoopRequest, ReplyTicket)
    /// A line that was or tried to be an event was refused (counted in `status` in order with the rest).
    case rejected
    /// The connection is gone: drop its subscriptions and monitors.
    case disconnected(ConnectionID)
    /// Finish the pass and stop.
    case stop
}

/// One reply from the loop for a connection's oldest reply it is still waiting for.
enum LoopReply: Sendable {
    /// `{"ok":true,"seq":N}`, written by the I/O thread without allocating.
    case ack(UInt64)
    /// A whole reply line (with its newline).
    case line([UInt8])
    /// The request gets no reply (an ack in `errors`/`off` mode).
    case none
}

/// Holds inputs the loop is done with until the I/O thread drops them.
final class ConsumedInputs: @unchecked Sendable {
    // @unchecked: the loop thread stops touching the inputs when it hands this over; only the I/O thread then
    // releases it.
    private let inputs: Any

    init(_ inputs: Any) {
        self.inputs = inputs
    }
}

/// What the loop thread hands to the I/O thread.
enum LoopOutput: Sendable {
    case reply(ConnectionID, LoopReply)
    /// The newest model line for these subscriptions; replaces one not yet written (latest-wins). One message and
    /// one buffer for every subscriber of the same path.
    case model([ConnectionID], [UInt8])
    /// A monitor trace line.
    case trace(ConnectionID, [UInt8])
    /// The inbound queue has room again: connections paused for backpressure may read.
    case inboundSpace
    /// A pass's consumed inputs, handed back so the I/O thread, which allocated them, also frees them: glibc's
    /// malloc frees across threads under an arena lock, which showed up as contention in the ingest profile.
    case release(ConsumedInputs)
    /// The loop finished its last pass.
    case stopped
}
