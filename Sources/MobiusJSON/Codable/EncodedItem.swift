/// Output under construction in ``ValueEncoder``. Containers share boxes by reference so
/// nested containers and super-encoders write into their parent after being handed out.
enum EncodedItem {
    case value(JSONValue)
    case array(ArrayBox)
    case object(ObjectBox)
    /// A super- or nested encoder whose output is read when the tree is finished.
    case encoder(ValueEncoder)

    /// The finished value; an encoder that wrote nothing becomes `{}`, as in Foundation.
    func resolved() -> JSONValue {
        switch self {
        case .value(let value):
            return value
        case .array(let box):
            return .array(box.items.map { $0.resolved() })
        case .object(let box):
            var members: [(key: String, value: JSONValue)] = []
            members.reserveCapacity(box.keys.count)
            for (key, item) in zip(box.keys, box.items) { members.append((key, item.resolved())) }
            return .object(JSONObject(uniqueMembers: members))
        case .encoder(let encoder):
            return encoder.storage?.resolved() ?? .object(JSONObject())
        }
    }
}

/// Elements of an unkeyed container being encoded.
final class ArrayBox {
    var items: [EncodedItem] = []
}

/// Members of a keyed container being encoded, in first-write order; a key written twice
/// keeps its position and takes the last value.
final class ObjectBox {
    var keys: [String] = []
    var items: [EncodedItem] = []
    private var positions: [String: Int] = [:]

    func set(_ key: String, _ item: EncodedItem) {
        if let position = positions[key] {
            items[position] = item
        } else {
            positions[key] = keys.count
            keys.append(key)
            items.append(item)
        }
    }

    func item(for key: String) -> EncodedItem? {
        positions[key].map { items[$0] }
    }
}
