import MobiusJSON

/// An event in the loop's queue (`PassInput.event`).
struct QueuedEvent<Event> {
    /// The event, decoded to the app's type.
    var event: Event
    /// Its JSON form when it arrived as JSON and there is no `text` (the journal records that).
    var json: JSONValue?
    /// The compact text it was parsed from when a client sent it (recorded as it is, with no second encoding).
    var text: ArraySlice<UInt8>?
    var source: EventSourceKind
    /// Set when a client is owed a reply.
    var ticket: ReplyTicket?
}
