import MobiusJSON

/// The events the D-Bus sources of power-policy.json produce (docs/dbus.md shape), typed.
///
/// - `{"type":"prepareForSleep","args":[true]}`: logind's PrepareForSleep(b).
/// - `{"type":"upower"…}`: UPower's PropertiesChanged(s, a{sv}, as), or its initial read GetAll's reply `[a{sv}]`
///   (`"initialRead":true`); `OnBattery` and `Percentage` are taken from either.
/// - `{"type":"suspendAnswered","reply":[…]}` or `…"error":{"name":…}`: the answer to the Suspend call.
enum PowerEvent: Codable, Equatable, Sendable {
    case prepareForSleep(Bool)
    case power(onBattery: Bool?, percentage: Double?)
    case suspendAnswered(error: String?)

    struct Unknown: Error, CustomStringConvertible {
        let description: String
    }

    init(json: JSONValue) throws {
        switch json["type"]?.stringValue {
        case "prepareForSleep":
            guard let starting = json["args"]?[0]?.boolValue else { throw Unknown(description: "PrepareForSleep(b)") }
            self = .prepareForSleep(starting)
        case "upower":
            let isRead = json["initialRead"]?.boolValue == true
            guard let properties = json["args"]?[isRead ? 0 : 1], case .object = properties else {
                throw Unknown(description: "UPower properties (a{sv})")
            }
            self = .power(
                onBattery: properties["OnBattery"]?.boolValue, percentage: properties["Percentage"]?.doubleValue)
        case "suspendAnswered":
            self = .suspendAnswered(error: json["error"]?["name"]?.stringValue)
        default:
            throw Unknown(description: "an event of type prepareForSleep, upower or suspendAnswered")
        }
    }

    var json: JSONValue {
        func optional<T>(_ value: T?, _ wrap: (T) -> JSONValue) -> JSONValue { value.map(wrap) ?? .null }
        switch self {
        case .prepareForSleep(let starting):
            return ["type": "prepareForSleep", "args": [.bool(starting)]]
        case .power(let onBattery, let percentage):
            var properties = JSONObject()
            if let onBattery { properties["OnBattery"] = .bool(onBattery) }
            if let percentage, let number = JSONNumber(percentage) { properties["Percentage"] = .number(number) }
            return ["type": "upower", "initialRead": true, "args": [.object(properties)]]
        case .suspendAnswered(let error):
            return ["type": "suspendAnswered", "error": optional(error) { ["name": .string($0)] }]
        }
    }

    init(from decoder: any Decoder) throws {
        try self.init(json: try JSONValue(from: decoder))
    }

    func encode(to encoder: any Encoder) throws {
        try json.encode(to: encoder)
    }
}
