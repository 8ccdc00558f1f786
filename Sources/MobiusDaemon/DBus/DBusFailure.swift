/// A D-Bus error: its name (`org.freedesktop.DBus.Error.ServiceUnknown`) and message, from the bus, a peer, or
/// libdbus itself (a connection that could not be made).
struct DBusFailure: Error, CustomStringConvertible, Sendable {
    let name: String
    let message: String

    var description: String { "\(name): \(message)" }

    /// `org.freedesktop.DBus.Error.<name>`, one of the specification's standard errors.
    static func standard(_ name: String, _ message: String) -> DBusFailure {
        DBusFailure(name: "org.freedesktop.DBus.Error." + name, message: message)
    }

    static func disconnected(_ message: String) -> DBusFailure {
        DBusFailure(name: "org.freedesktop.DBus.Error.Disconnected", message: message)
    }

    static func noReply(_ message: String) -> DBusFailure {
        DBusFailure(name: "org.freedesktop.DBus.Error.NoReply", message: message)
    }

    static func invalidArgs(_ message: String) -> DBusFailure {
        DBusFailure(name: "org.freedesktop.DBus.Error.InvalidArgs", message: message)
    }

    static func limitsExceeded(_ message: String) -> DBusFailure {
        DBusFailure(name: "org.freedesktop.DBus.Error.LimitsExceeded", message: message)
    }
}
