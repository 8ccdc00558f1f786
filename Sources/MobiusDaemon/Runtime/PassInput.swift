import MobiusJSON

/// One item of the loop's queue, in arrival order. A pass takes the whole queue and handles each item in order, so
/// a read sees exactly the events queued before it.
enum PassInput<Event> {
    /// An event, already decoded to the app's type. `json` is its JSON form when it arrived as JSON and there is
    /// no `text` (the journal records that), `text` the compact text it was parsed from when a client sent it (recorded as it is, with
    /// no second encoding); `ticket` is set when a client is owed a reply.
    case event(
        Event, json: JSONValue?, text: ArraySlice<UInt8>? = nil, source: EventSourceKind, ticket: ReplyTicket?)
    /// A read or stream request.
    case request(LoopRequest, ReplyTicket)
    /// A line that was, or tried to be, an event but was refused before the loop (malformed, not permitted):
    /// counted in `events.rejected` and answered in order. No reply when the ticket's mode is `off`.
    case rejected(ErrorCode, String, ReplyTicket)
    /// A reply known without the loop (help, reply, quit, argument errors), kept in line order with the rest.
    case reply([UInt8], ReplyTicket)
    /// The connection is gone: drop its subscription and monitor.
    case disconnected(ConnectionID)

    /// Where the item came from, for queue depths in `status`.
    var sourceKind: EventSourceKind {
        if case .event(_, _, _, let source, _) = self { return source }
        return .client
    }
}
