import MobiusJSON

/// Everything a pass changes and a failed commit must restore: the model, the last seq, the event counters.
/// A pass works on a copy and the copy replaces the state only when the pass commits.
struct LoopState<Model> {
    var model: Model
    /// The seq of the last applied event (0: none yet).
    var seq: UInt64 = 0
    /// The JSON form of `model`, computed at most once per model.
    var modelJSON: JSONValue?
    /// Events applied.
    var accepted: UInt64 = 0
    /// Lines that were or tried to be events and were not applied, and rejected events from other sources.
    var rejected: UInt64 = 0
}
