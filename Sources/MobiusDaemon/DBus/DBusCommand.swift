import MobiusJSON

/// Work handed from the reactor thread to a bus thread.
enum DBusCommand: Sendable {
    /// A method call; the reply (or error) becomes an event from `template` when there is one.
    case call(DBusMessage, timeout: Double, template: JSONValue?, what: String)
    /// A signal to emit.
    case emit(DBusMessage, what: String)
}
