import MobiusJSON

/// docs/protocol.md 2.4: the routing key of an effect.
enum EffectRoutingKey {
    /// A string is its own key; an object with a string `type` uses it; an object with exactly one member uses
    /// that member's name (Swift's Codable shape for enum cases). Anything else has none.
    static func of(_ effect: JSONValue) -> String? {
        switch effect {
        case .string(let key):
            return key
        case .object(let object):
            if case .string(let type)? = object["type"] { return type }
            if object.count == 1 { return object.keys.first }
            return nil
        default:
            return nil
        }
    }
}
