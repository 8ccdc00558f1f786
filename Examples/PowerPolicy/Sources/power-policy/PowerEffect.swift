import MobiusJSON

/// What the policy asks for, encoded as the daemon's built-in effects (docs/dbus.md): a log line, the mode
/// announced as a signal, and a suspend asked of logind.
enum PowerEffect: Codable, Equatable, Sendable {
    case log(String)
    case announce(mode: String, bus: String)
    case suspend(bus: String)

    var json: JSONValue {
        switch self {
        case .log(let message):
            return ["type": "mobiusd.log", "message": .string(message), "level": "notice"]
        case .announce(let mode, let bus):
            return [
                "type": "mobiusd.dbus.emit", "bus": .string(bus), "path": "/org/mobiusd/PowerPolicy",
                "interface": "org.mobiusd.PowerPolicy", "member": "ModeChanged", "signature": "s",
                "args": [.string(mode)],
            ]
        case .suspend(let bus):
            return [
                "type": "mobiusd.dbus.call", "bus": .string(bus), "destination": "org.freedesktop.login1",
                "path": "/org/freedesktop/login1", "interface": "org.freedesktop.login1.Manager",
                "member": "Suspend", "signature": "b", "args": [false], "timeout": 10,
                "event": ["type": "suspendAnswered"],
            ]
        }
    }

    struct Unknown: Error {}

    init(from decoder: any Decoder) throws {
        let json = try JSONValue(from: decoder)
        switch json["type"]?.stringValue {
        case "mobiusd.log": self = .log(json["message"]?.stringValue ?? "")
        case "mobiusd.dbus.emit":
            self = .announce(mode: json["args"]?[0]?.stringValue ?? "", bus: json["bus"]?.stringValue ?? "")
        case "mobiusd.dbus.call": self = .suspend(bus: json["bus"]?.stringValue ?? "")
        default: throw Unknown()
        }
    }

    func encode(to encoder: any Encoder) throws {
        try json.encode(to: encoder)
    }
}
