internal import CDBus

extension DBusMessage {
    /// The message's signature (`ss`, empty for no arguments).
    var signature: String { dbus_message_get_signature(raw).map { String(cString: $0) } ?? "" }

    /// Whether the caller asked for no reply (a reply would then be refused by the bus).
    var expectsNoReply: Bool { dbus_message_get_no_reply(raw) != 0 }

    /// The method return for this call (arguments appended by the caller); `nil` when libdbus runs out of memory.
    func methodReturn() -> DBusMessage? {
        dbus_message_new_method_return(raw).map { DBusMessage(adopting: $0) }
    }

    /// An error reply to this call. `name` must be a valid error name (`org.mobiusd.Error.InvalidJSON`); `nil` when
    /// libdbus runs out of memory.
    func errorReply(_ failure: DBusFailure) -> DBusMessage? {
        dbus_message_new_error(raw, failure.name, failure.message).map { DBusMessage(adopting: $0) }
    }

    /// What a string argument holds: its bytes, or only its length when that is over the limit.
    enum StringArgument {
        case text([UInt8])
        case tooLong(Int)
    }

    /// The string arguments, in order, each at most `maxBytes` long (else `.tooLong` with its length, not copied);
    /// `nil` when an argument is not a string. The caller has checked the signature.
    func stringArguments(maxBytes: Int) -> [StringArgument]? {
        var iterator = DBusMessageIter()
        guard dbus_message_iter_init(raw, &iterator) != 0 else { return [] }
        var strings: [StringArgument] = []
        while dbus_message_iter_get_arg_type(&iterator) != MOBIUSD_DBUS_TYPE_INVALID {
            guard dbus_message_iter_get_arg_type(&iterator) == MOBIUSD_DBUS_TYPE_STRING else { return nil }
            var pointer: UnsafePointer<CChar>? = nil
            dbus_message_iter_get_basic(&iterator, &pointer)
            guard let pointer else { return nil }
            // libdbus has checked the text: valid UTF-8, no NUL inside, NUL-terminated.
            var length = 0
            while pointer[length] != 0 { length += 1 }
            if length > maxBytes {
                strings.append(.tooLong(length))
            } else {
                let bytes = UnsafeRawBufferPointer(start: pointer, count: length)
                strings.append(.text(Array(bytes)))
            }
            dbus_message_iter_next(&iterator)
        }
        return strings
    }
}
