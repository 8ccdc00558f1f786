internal import CDBus

/// One libdbus message (a reference to `DBusMessage`), released when the wrapper goes.
final class DBusMessage: @unchecked Sendable {
    // @unchecked: libdbus reference-counts messages atomically; a message is built on one thread and then only
    // handed over (to the bus thread that sends it), never used by two threads at once.
    let raw: OpaquePointer

    /// Takes over a reference the caller owns.
    init(adopting raw: OpaquePointer) {
        self.raw = raw
    }

    /// Takes a new reference (for a message libdbus lends to a filter).
    init(retaining raw: OpaquePointer) {
        self.raw = raw
        dbus_message_ref(raw)
    }

    deinit {
        dbus_message_unref(raw)
    }

    /// The kinds of message.
    enum Kind {
        case methodCall, methodReturn, error, signal, other
    }

    var kind: Kind {
        switch dbus_message_get_type(raw) {
        case MOBIUSD_DBUS_MESSAGE_TYPE_SIGNAL: .signal
        case MOBIUSD_DBUS_MESSAGE_TYPE_METHOD_RETURN: .methodReturn
        case MOBIUSD_DBUS_MESSAGE_TYPE_ERROR: .error
        case MOBIUSD_DBUS_MESSAGE_TYPE_METHOD_CALL: .methodCall
        default: .other
        }
    }

    private static func text(_ pointer: UnsafePointer<CChar>?) -> String? {
        pointer.map { String(cString: $0) }
    }

    var sender: String? { Self.text(dbus_message_get_sender(raw)) }
    var path: String? { Self.text(dbus_message_get_path(raw)) }
    var interface: String? { Self.text(dbus_message_get_interface(raw)) }
    var member: String? { Self.text(dbus_message_get_member(raw)) }
    var errorName: String? { Self.text(dbus_message_get_error_name(raw)) }
    var replySerial: UInt32 { dbus_message_get_reply_serial(raw) }

    /// A signal. The names must have been checked (`DBusNames`): libdbus treats bad ones as programmer errors.
    static func signal(path: String, interface: String, member: String) -> DBusMessage? {
        dbus_message_new_signal(path, interface, member).map { DBusMessage(adopting: $0) }
    }

    /// A method call; `interface` may be `nil`. The names must have been checked (`DBusNames`).
    static func methodCall(destination: String?, path: String, interface: String?, member: String) -> DBusMessage? {
        dbus_message_new_method_call(destination, path, interface, member).map { DBusMessage(adopting: $0) }
    }

    /// Sets the destination (a checked bus name).
    func setDestination(_ destination: String) {
        _ = dbus_message_set_destination(raw, destination)
    }

    /// Marks a call whose reply nobody waits for; the peer then sends none.
    func setNoReply() {
        dbus_message_set_no_reply(raw, 1)
    }
}
