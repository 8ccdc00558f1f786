/// The parts of a received message a match rule looks at.
struct DBusSignalHeader: Sendable {
    var sender: String?
    var path: String?
    var interface: String?
    var member: String?
    /// The message's first arguments (up to 64): the text of string arguments, `nil` for other types.
    var stringArguments: [String?] = []
}
