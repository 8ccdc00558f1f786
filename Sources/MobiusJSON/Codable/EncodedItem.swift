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
