import MobiusJSON

/// The loop's record of model subscriptions: per connection, an optional JSON Pointer and what it was last sent,
/// so each pass publishes the newest model once per distinct path and skips path values that did not change.
struct SubscriptionHub {
    private struct Subscription {
        let path: JSONPointer?
        var seq: UInt64
        var value: JSONValue
    }

    private var subscriptions: [ConnectionID: Subscription] = [:]
    /// Connections in the order they subscribed (publication order), compacted lazily.
    private var order: [ConnectionID] = []

    var isEmpty: Bool { subscriptions.isEmpty }
    var count: Int { subscriptions.count }

    func contains(_ connection: ConnectionID) -> Bool {
        subscriptions[connection] != nil
    }

    /// Records a subscription that has been sent `value` at `seq` (replacing the connection's earlier one).
    mutating func add(_ connection: ConnectionID, path: JSONPointer?, seq: UInt64, value: JSONValue) {
        if subscriptions.updateValue(Subscription(path: path, seq: seq, value: value), forKey: connection) == nil {
            order.append(connection)
        }
    }

    /// Drops a connection's subscription.
    mutating func remove(_ connection: ConnectionID) {
        guard subscriptions.removeValue(forKey: connection) != nil else { return }
        if order.count > 2 * subscriptions.count + 16 { order.removeAll { subscriptions[$0] == nil } }
    }

    /// What to send: each distinct value once, with every connection that should get it, in subscription order.
    /// Subscriptions already at `seq` (subscribed at the pass's last event) and path subscriptions whose value did
    /// not change get nothing.
    mutating func publish(seq: UInt64, model: JSONValue) -> [(value: JSONValue, connections: [ConnectionID])] {
        var wholeModel: [ConnectionID] = []
        var byPath: [String: (value: JSONValue, connections: [ConnectionID])] = [:]
        var pathOrder: [String] = []
        for connection in order {
            guard var subscription = subscriptions[connection], subscription.seq < seq else { continue }
            subscription.seq = seq
            guard let path = subscription.path else {
                subscriptions[connection] = subscription
                wholeModel.append(connection)
                continue
            }
            let key = path.description
            let value = byPath[key]?.value ?? path.value(in: model) ?? .null
            if value != subscription.value {
                subscription.value = value
                if byPath[key] == nil { pathOrder.append(key) }
                byPath[key, default: (value, [])].connections.append(connection)
            }
            subscriptions[connection] = subscription
        }
        var deliveries: [(value: JSONValue, connections: [ConnectionID])] = []
        if !wholeModel.isEmpty { deliveries.append((model, wholeModel)) }
        for key in pathOrder { deliveries.append(byPath[key]!) }
        return deliveries
    }
}
