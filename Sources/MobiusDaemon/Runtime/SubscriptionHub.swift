import MobiusJSON

/// The loop thread's record of model subscriptions: per connection, an optional JSON Pointer and what it was last
/// sent, so each pass publishes the newest model once per distinct path and skips path values that did not change.
struct SubscriptionHub {
    private struct Subscription {
        let path: JSONPointer?
        var seq: UInt64
        var value: JSONValue
    }

    private var subscriptions: [ConnectionID: Subscription] = [:]

    var isEmpty: Bool { subscriptions.isEmpty }

    /// Records a subscription that has been sent `value` at `seq`. Returns `true` if the connection had none.
    mutating func add(_ connection: ConnectionID, path: JSONPointer?, seq: UInt64, value: JSONValue) -> Bool {
        subscriptions.updateValue(Subscription(path: path, seq: seq, value: value), forKey: connection) == nil
    }

    /// Drops a connection's subscription. Returns `true` if it had one.
    mutating func remove(_ connection: ConnectionID) -> Bool {
        subscriptions.removeValue(forKey: connection) != nil
    }

    /// Calls `deliver` once per distinct value to send, with every connection that should get it.
    /// Subscriptions already at `seq` (subscribed during this pass) and path subscriptions whose value did not
    /// change get nothing.
    mutating func publish(seq: UInt64, model: JSONValue, deliver: (JSONValue, [ConnectionID]) -> Void) {
        var wholeModel: [ConnectionID] = []
        var byPath: [String: (value: JSONValue, connections: [ConnectionID])] = [:]
        for (connection, subscription) in subscriptions where subscription.seq < seq {
            guard let path = subscription.path else {
                wholeModel.append(connection)
                subscriptions[connection]?.seq = seq
                continue
            }
            let key = path.description
            let value = byPath[key]?.value ?? path.value(in: model) ?? .null
            subscriptions[connection]?.seq = seq
            guard value != subscription.value else { continue }
            subscriptions[connection]?.value = value
            byPath[key, default: (value, [])].connections.append(connection)
        }
        if !wholeModel.isEmpty { deliver(model, wholeModel) }
        for group in byPath.values { deliver(group.value, group.connections) }
    }
}
