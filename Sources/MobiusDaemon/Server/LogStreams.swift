/// The control server's `log` streams: the source they read from and the connections streaming.
final class LogStreams {
    /// The journal (or the ephemeral window); `nil` until the runtime wires it. Unowned, not weak: the journal
    /// holds these streams, and outlives them; a weak reference gave the journal a side table, which sent each
    /// retain of it (one per pass) down the runtime's slow path.
    unowned var source: (any LogSource)?
    /// Connections with a stream, in the order they started.
    var connections: [ConnectionID] = []
    /// Streams to go on at the end of this round (started, or new events committed).
    var due: [ConnectionID] = []

    /// A connection's stream ended, or the connection closed.
    func ended(_ id: ConnectionID) {
        // By index rather than `removeAll(where:)`, whose closure call inside the access to `connections` would put
        // a runtime exclusivity check on every access to it, one per pass among them (`committed`).
        if let index = connections.firstIndex(of: id) { connections.remove(at: index) }
    }

    /// New events were committed: every stream goes on at the end of the round.
    func committed() {
        guard !connections.isEmpty else { return }
        due.append(contentsOf: connections)
    }
}
