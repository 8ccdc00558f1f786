import MobiusJSON

/// What the control server hands the loop for one request line (or a closed connection): the loop's inputs
/// before the app's codec has decoded the event, so the server needs no knowledge of the app's types.
enum ClientInput: Sendable {
    /// An event line, parsed; the loop decodes it with the app's codec (`InvalidEvent` if that fails). `text` is
    /// the line's JSON when it is compact (`JSONWire.compactText`), for the journal: a slice of a batch's array, of
    /// a small connection input buffer, or a copy (`ControlServer.processLines`). The JSON is `nil` only when there
    /// is a text and the loop takes events as text (`RequestState.eventsAsText`).
    case event(JSONValue?, text: ArraySlice<UInt8>?, ReplyTicket)
    case request(LoopRequest, ReplyTicket)
    /// A line that was, or tried to be, an event but was refused before the loop.
    case rejected(ErrorCode, String, ReplyTicket)
    /// A reply known without the loop, kept in line order with the rest.
    case reply([UInt8], ReplyTicket)
    /// The connection is gone: drop its subscription and monitor.
    case disconnected(ConnectionID)

    /// The length of an event's compact text; 0 for any other input.
    var eventTextCount: Int {
        // A `switch` that binds only the text, so that the rest of the payload is not copied.
        switch self {
        case .event(_, let text, _): text?.count ?? 0
        default: 0
        }
    }
}
