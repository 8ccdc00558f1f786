import MobiusJSON

/// A `log` request's argument (docs/protocol.md 1.2): events after `since`, at most `limit`, whether to keep
/// streaming new ones, and whether each item carries the model after its event.
struct LogRequest: Sendable, Equatable {
    var since: UInt64 = 0
    var limit: UInt64?
    var follow = false
    var models = false
}

/// A `log` stream as the loop answered it: what to send, for the control server to stream once the pass is out.
struct LogStreamStart: Sendable, Equatable {
    /// The first seq to send.
    let from: UInt64
    /// Without `follow`: the last seq to send (the head when the request was handled).
    let stopAfter: UInt64?
    /// At most this many events.
    let limit: UInt64?
    /// Each item carries the model after its event (`log {"models":true}`).
    var models = false
    /// With `models`: the model right after `from - 1`, when the pass held it (the stream starts at the head);
    /// otherwise the history thread computes it.
    var startModel: JSONValue?
}
