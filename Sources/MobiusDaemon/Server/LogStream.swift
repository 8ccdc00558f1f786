import MobiusJSON

/// One connection's `log` stream: where it is, where it stops, and whether a disk read is out for it.
struct LogStream {
    /// The next seq to send.
    var next: UInt64
    /// Without `follow`: the last seq to send.
    let stopAfter: UInt64?
    /// Events still allowed by `limit`.
    var remaining: UInt64?
    /// A read of older records is at the read thread.
    var reading = false
    var cursor: JournalReader.Cursor?
    /// Each item carries the model after its event (`log {"models":true}`).
    let models: Bool
    /// With `models`: the model right after `next - 1`, once known (a replay goes on from it).
    var model: JSONValue?

    init(_ start: LogStreamStart) {
        next = start.from
        stopAfter = start.stopAfter
        remaining = start.limit
        models = start.models
        model = start.startModel
    }

    /// The last seq this stream may send now, given the committed head.
    func through(head: UInt64) -> UInt64 {
        var last = min(stopAfter ?? head, head)
        if let remaining { last = min(last, next &+ remaining &- 1) }
        return remaining == 0 ? next &- 1 : last
    }

    /// Whether it has sent all it will: past its stop or its limit.
    var isFinished: Bool {
        remaining == 0 || stopAfter.map { next > $0 } == true
    }
}
