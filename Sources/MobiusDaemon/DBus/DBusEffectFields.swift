import MobiusJSON

/// Reads an effect's members, naming the member in every error.
struct DBusEffectFields {
    let object: JSONObject

    init(_ effect: JSONValue, allowed: Set<String>) throws(DBusArgumentError) {
        guard case .object(let object) = effect else {
            throw DBusArgumentError(argument: "effect", problem: "must be an object")
        }
        if let unknown = object.keys.first(where: { !allowed.contains($0) }) {
            throw DBusArgumentError(argument: unknown, problem: "unknown member")
        }
        self.object = object
    }

    func bus() throws(DBusArgumentError) -> String {
        guard case .string(let bus)? = object["bus"], DBusNames.isBus(bus) else {
            throw DBusArgumentError(
                argument: "bus", problem: "must be \"system\", \"session\" or a unix: or tcp: bus address")
        }
        return bus
    }

    func name(
        _ key: String, _ valid: (String) -> Bool, _ what: String, required: Bool
    ) throws(DBusArgumentError)
        -> String?
    {
        guard let value = object[key], !value.isNull else {
            if required { throw DBusArgumentError(argument: key, problem: "is required: \(what)") }
            return nil
        }
        guard case .string(let text) = value, valid(text) else {
            throw DBusArgumentError(argument: key, problem: "must be \(what)")
        }
        return text
    }

    func arguments() throws(DBusArgumentError) -> [DBusArgument] {
        let signature: String
        switch object["signature"] {
        case nil, .null?: signature = ""
        case .string(let text)?: signature = text
        default: throw DBusArgumentError(argument: "signature", problem: "must be a string")
        }
        let values: [JSONValue]
        switch object["args"] {
        case nil, .null?: values = []
        case .array(let items)?: values = items
        default: throw DBusArgumentError(argument: "args", problem: "must be an array")
        }
        return try DBusArgument.list(values, signature: signature)
    }

    func timeout(default fallback: Double) throws(DBusArgumentError) -> Double {
        guard let value = object["timeout"], !value.isNull else { return fallback }
        guard let seconds = value.doubleValue, seconds.isFinite, DBusMethodCall.timeoutRange.contains(seconds) else {
            throw DBusArgumentError(argument: "timeout", problem: "must be a number of seconds from 0.001 to 3600")
        }
        return seconds
    }
}
