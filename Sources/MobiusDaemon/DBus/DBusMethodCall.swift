/// A method call checked and typed ahead of time: a source's initial read (from config) or a
/// `mobiusd.dbus.call` effect.
struct DBusMethodCall: Sendable {
    var destination: String
    var path: String
    var interface: String?
    var member: String
    var arguments: [DBusArgument]
    /// Seconds to wait for the reply.
    var timeout: Double

    static let timeoutRange = 0.001...3600.0

    /// The libdbus message; `nil` when libdbus runs out of memory.
    func message() -> DBusMessage? {
        guard
            let message = DBusMessage.methodCall(
                destination: destination, path: path, interface: interface, member: member),
            message.append(arguments)
        else { return nil }
        return message
    }
}
