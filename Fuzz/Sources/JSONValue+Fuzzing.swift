import MobiusJSON

/// Rearrangements the JSON target compares values through.
extension JSONValue {
    /// The value with every object's members in key order (to compare texts that order them differently).
    var sortedKeys: JSONValue {
        switch self {
        case .array(let items): return .array(items.map(\.sortedKeys))
        case .object(let object):
            return .object(JSONObject(object.members.sorted { $0.key < $1.key }.map { ($0.key, $0.value.sortedKeys) }))
        default: return self
        }
    }

    /// The value with `transform` applied to each element or member value (one level).
    func mapChildren(_ transform: (JSONValue) -> JSONValue) -> JSONValue {
        switch self {
        case .array(let items): return .array(items.map(transform))
        case .object(let object): return .object(JSONObject(object.members.map { ($0.key, transform($0.value)) }))
        default: return self
        }
    }
}
