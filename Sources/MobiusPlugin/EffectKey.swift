import MobiusJSON

/// The routing key of an effect (docs/protocol.md 2.4).
public enum EffectKey {
    /// The key of `effect`: a string is its own key; an object with a string `type` uses it; an object with
    /// exactly one member uses that member's name. Anything else has no key (`nil`): it is unroutable.
    public static func of(_ effect: JSONValue) -> String? {
        switch effect {
        case .string(let key):
            return key
        case .object(let object):
            if case .string(let type)? = object["type"] { return type }
            if object.count == 1 { return object.keys[0] }
            return nil
        default:
            return nil
        }
    }
}
