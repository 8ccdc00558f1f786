import MobiusJSON

/// A `model {"at":N}` request for a seq before the head, which a replay answers off the reactor.
struct HistoryQuery: Sendable, Equatable {
    /// The seq whose model is asked for.
    let at: UInt64
    /// Only the value at this JSON Pointer (`null` when absent).
    let path: JSONPointer?
}
