import MobiusJSON

/// A change to who streams what, recorded while a pass is computed and applied in order when it ends (commit or
/// not: a subscription is a read, answered against whichever state the pass leaves).
enum StreamChange {
    /// A subscription sent `value` (at `path`) as of `seq`.
    case subscribe(ConnectionID, path: JSONPointer?, value: JSONValue, seq: UInt64)
    case monitor(ConnectionID)
    /// A `log` stream starts once the pass is out.
    case log(ConnectionID, LogStreamStart)
    case disconnect(ConnectionID)
}

extension StreamChange {
    /// Whether this change subscribes `connection`.
    func subscribes(_ connection: ConnectionID) -> Bool {
        if case .subscribe(connection, _, _, _) = self { return true }
        return false
    }
}
