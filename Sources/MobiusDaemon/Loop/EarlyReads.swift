/// The reads a loop may answer while a pass waits for its update plugin (`LoopPhase.preparing`): `status`, `ping`
/// and `hello` of a connection with nothing earlier still waiting, in that pass or before them in the queue. They
/// read only the committed state, and the connection's order holds, so a slow or hung update plugin does not hide
/// the daemon's state (docs/protocol.md 2.5).
enum EarlyReads {
    /// Whether `request` is one of those reads.
    static func mayGoFirst(_ request: LoopRequest) -> Bool {
        switch request {
        case .status, .ping, .hello: true
        default: false
        }
    }

    /// Takes the reads that may be answered now out of `queue`, in order, leaving the rest in order; `pass` is the
    /// inputs of the pass being prepared.
    static func take<Event>(from queue: inout [PassInput<Event>], pass: [PassInput<Event>]) -> [PassInput<Event>] {
        var waiting = Set(pass.lazy.compactMap(\.connection))
        var early: [PassInput<Event>] = []
        var rest: [PassInput<Event>] = []
        rest.reserveCapacity(queue.count)
        for input in queue {
            if case .request(let request, let ticket) = input, mayGoFirst(request), !waiting.contains(ticket.connection)
            {
                early.append(input)
                continue
            }
            if let connection = input.connection { waiting.insert(connection) }
            rest.append(input)
        }
        if !early.isEmpty { queue = rest }
        return early
    }
}
