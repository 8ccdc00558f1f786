/// The control server's `log` streams: the source they read from and the connections streaming.
final class LogStreams {
    /// The journal (or the ephemeral window). Unowned: the journal holds these streams and outlives them (a weak
    /// reference would give the journal a side table, slowing each retain).
    unowned let source: any LogSource
    /// Connections with a stream, in the order they started.
    private(set) var connections: [ConnectionID] = []
    /// Streams to go on at the end of this round (started, or new events committed).
    private(set) var due: [ConnectionID] = []
    /// Connections whose stream carries models (`log {"models":true}`): while there are any, passes give the journal
    /// their models.
    private var modelStreams: [ConnectionID] = []

    /// Whether a stream carries models.
    var hasModelStreams: Bool { !modelStreams.isEmpty }

    init(source: any LogSource) {
        self.source = source
    }

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

    /// New events were committed: every stream goes on at the end of the round.
    func committed() {
        guard !connections.isEmpty else { return }
        var moved: [ConnectionID] = []
        swap(&moved, &due)
        moved.append(contentsOf: connections)
        swap(&moved, &due)
    }
}
