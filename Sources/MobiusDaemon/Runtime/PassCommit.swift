import MobiusJSON

/// The events a pass applied, handed to the commit hook before anything of the pass leaves the loop.
struct PassCommit: Sendable {
    /// One applied event.
    struct Entry: Sendable {
        let seq: UInt64
        /// The event as JSON (as it arrived, or encoded by the app's codec).
        let event: JSONValue
        /// The compact text a client sent it as, when there is one: recorded as it is instead of encoding `event`.
        var text: ArraySlice<UInt8>? = nil
    }

    /// The applied events, in seq order (may be empty: a pass of reads only).
    let entries: [Entry]
}
