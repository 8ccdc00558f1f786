/// The texts of queued events for an external update (an update plugin), split where a pass reads the model
/// between two of them (`model`, `subscribe`): each segment is a run of events the update may compute together.
///
/// The loop keeps it beside its queue as inputs arrive, so a pass hands the texts over without walking its inputs
/// again (a copy of each queued event through the runtime's value witnesses, touching memory the parse thread
/// wrote).
struct EventSegments {
    private var closed: [[ArraySlice<UInt8>]] = []
    private var current: [ArraySlice<UInt8>] = []

    /// Whether no event was noted since the last `take`.
    var isEmpty: Bool { closed.isEmpty && current.isEmpty }

    /// Notes the next queued event's compact JSON text.
    mutating func append(_ text: ArraySlice<UInt8>) {
        current.append(text)
    }

    /// Ends the current segment: the pass reads the model after it.
    mutating func cut() {
        guard !current.isEmpty else { return }
        closed.append(current)
        current = []
    }

    /// The segments noted so far, in order; none are left.
    mutating func take() -> [[ArraySlice<UInt8>]] {
        cut()
        var taken: [[ArraySlice<UInt8>]] = []
        swap(&taken, &closed)
        return taken
    }
}
