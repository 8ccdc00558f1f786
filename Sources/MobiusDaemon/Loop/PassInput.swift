import MobiusJSON

/// One item of the loop's queue, in arrival order. A pass takes the whole queue and handles each item in order, so
/// a read sees exactly the events queued before it.
enum PassInput<Event> {
    /// An event, already decoded to the app's type.
    ///
    /// One struct, not five payload values: binding a multi-payload enum's payload copies it through the Swift
    /// runtime's value witnesses even in specialized code, once per value.
    case event(QueuedEvent<Event>)
    /// A read or stream request.
    case request(LoopRequest, ReplyTicket)
    /// A line that was, or tried to be, an event but was refused before the loop (malformed, not permitted):
    /// counted in `events.rejected` and answered in order. No reply when the ticket's mode is `off`.
    case rejected(ErrorCode, String, ReplyTicket)
    /// A reply known without the loop (help, reply, quit, argument errors), kept in line order with the rest.
    case reply([UInt8], ReplyTicket)
    /// The connection is gone: drop its subscription and monitor.
    case disconnected(ConnectionID)

    /// An event item. Inlined, so a specialized caller builds it without looking up the generic type's metadata.
    @inline(__always)
    static func event(
        _ event: Event, json: JSONValue?, text: ArraySlice<UInt8>? = nil, source: EventSourceKind,
        ticket: ReplyTicket?
    ) -> PassInput {
        .event(QueuedEvent(event: event, json: json, text: text, source: source, ticket: ticket))
    }

    /// The connection the item answers, if a client waits for it (a disconnect waits for nothing).
    var connection: ConnectionID? {
        switch self {
        case .event(let queued): queued.ticket?.connection
        case .request(_, let ticket), .rejected(_, _, let ticket), .reply(_, let ticket): ticket.connection
        case .disconnected: nil
        }
    }

    /// Where the item came from, for queue depths in `status`.
    var sourceKind: EventSourceKind {
        if case .event(let queued) = self { return queued.source }
        return .client
    }
}
