import MobiusCore

/// An update computed outside the loop's thread (an update plugin, docs/protocol.md 2.5): asked for the results of a
/// pass's events before the pass is computed, so computing stays a synchronous step over values.
///
/// Both closures run on the reactor thread and answer later, also on it.
struct ExternalUpdate<Model, Event, Effect> {
    /// One event's outcome: its `Next`, or why it was rejected.
    typealias Outcome = Result<Next<Model, Effect>, EventRejection>

    /// Why no outcome can be had at all (the update plugin is `failed`): every event of the pass gets
    /// `Unavailable` with this message.
    struct Unavailable: Error {
        let message: String
    }

    /// Mobius `initiate` on the starting (or recovered) model.
    let initiate: (Model, @escaping (Result<First<Model, Effect>, Unavailable>) -> Void) -> Void
    /// The outcomes of `segments`' events, in order, applied from `model`. Events of one segment may be computed
    /// together (one batch); a segment ends where the pass reads the model, so each segment after the first starts
    /// from the model the one before it left.
    ///
    /// Each event comes as its compact JSON text, the bytes the journal records: a client's compact event as the
    /// client sent it, any other encoded once. The request to the plugin is put together from these bytes, so the loop
    /// neither walks nor copies the events' values to ask for their outcomes.
    let prepare: (Model, [[ArraySlice<UInt8>]], @escaping (Result<[Outcome], Unavailable>) -> Void) -> Void
    /// Why the update cannot answer now though it will retry (the plugin ended and waits for its restart), or
    /// `nil` while it runs or has not yet had trouble.
    let trouble: () -> String?
}
