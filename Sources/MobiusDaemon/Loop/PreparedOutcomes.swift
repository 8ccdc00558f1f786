import MobiusCore

/// The outcomes an `ExternalUpdate` computed for a pass, taken in event order while the pass is computed.
final class PreparedOutcomes<Model, Effect> {
    private let outcomes: [Result<Next<Model, Effect>, EventRejection>]
    private var index = 0

    init(_ outcomes: [Result<Next<Model, Effect>, EventRejection>]) {
        self.outcomes = outcomes
    }

    /// The next event's `Next`.
    /// - Throws: the event's `EventRejection`; also one when there are fewer outcomes than events (the pass then
    ///   rejects the rest instead of trapping).
    func next() throws(EventRejection) -> Next<Model, Effect> {
        guard index < outcomes.count else {
            throw EventRejection("internal: the update gave fewer results than the pass has events")
        }
        defer { index += 1 }
        return try outcomes[index].get()
    }
}
