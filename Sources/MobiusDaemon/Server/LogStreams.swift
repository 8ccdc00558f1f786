import MobiusJSON

/// The connections with a `log` stream: the journal tells them of each commit, the control server runs them.
final class LogStreams {
    /// Connections with a stream, in the order they started.
    private(set) var connections: [ConnectionID] = []
    /// Streams to go on at the end of this round (started, or new events committed).
    private(set) var due: [ConnectionID] = []
    /// Connections whose stream carries models (`log {"models":true}`): while there are any, passes give the journal
    /// their models.
    private var modelStreams: [ConnectionID] = []
    /// The loop's models after the newest events, kept while a stream carries models: those at the head send them
    /// with the records instead of replaying them. Let go when the last such stream ends.
    private(set) var recentModels = RecentModels()

    /// Whether a stream carries models.
    var hasModelStreams: Bool { !modelStreams.isEmpty }

    // Each list is moved out while it changes, so that no access to the stored property spans a call the optimizer
    // cannot see through: every access (one per pass among them, in `committed`) would be checked at run time.

    /// A connection's stream started.
    func started(_ id: ConnectionID) {
        var streaming: [ConnectionID] = []
        swap(&streaming, &connections)
        streaming.append(id)
        swap(&streaming, &connections)
    }

    /// Whether the connection's stream, started or next in its queue, carries models.
    func carriesModels(_ id: ConnectionID, _ models: Bool) {
        var streaming: [ConnectionID] = []
        swap(&streaming, &modelStreams)
        if let index = streaming.firstIndex(of: id) {
            if !models { streaming.remove(at: index) }
        } else if models {
            streaming.append(id)
        }
        swap(&streaming, &modelStreams)
        if !hasModelStreams { recentModels.removeAll() }
    }

    /// A connection's stream is to go on at the end of the round.
    func makeDue(_ id: ConnectionID) {
        var moved: [ConnectionID] = []
        swap(&moved, &due)
        moved.append(id)
        swap(&moved, &due)
    }

    /// The streams due, which are no longer.
    func takeDue() -> [ConnectionID] {
        var taken: [ConnectionID] = []
        swap(&taken, &due)
        return taken
    }

    /// A connection's stream ended, or the connection closed.
    func ended(_ id: ConnectionID) {
        var streaming: [ConnectionID] = []
        swap(&streaming, &connections)
        if let index = streaming.firstIndex(of: id) { streaming.remove(at: index) }
        swap(&streaming, &connections)
        if hasModelStreams { carriesModels(id, false) }
    }

    /// New events were committed, `models` the loop's after the last `models.count` of them (while a stream
    /// carries models): every stream goes on at the end of the round.
    func committed(models: [JSONValue], lastSeq: UInt64) {
        guard !connections.isEmpty else { return }
        if hasModelStreams { recentModels.append(models, lastSeq: lastSeq) }
        var moved: [ConnectionID] = []
        swap(&moved, &due)
        moved.append(contentsOf: connections)
        swap(&moved, &due)
    }
}
