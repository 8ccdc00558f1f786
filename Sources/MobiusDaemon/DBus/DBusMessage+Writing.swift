internal import CDBus

extension DBusMessage {
    /// Appends typed arguments in order; `false` when libdbus ran out of memory.
    func append(_ arguments: [DBusArgument]) -> Bool {
        var iterator = DBusMessageIter()
        dbus_message_iter_init_append(raw, &iterator)
        return arguments.allSatisfy { Self.append($0, to: &iterator) }
    }

    private static func basic<T: BitwiseCopyable>(_ value: T, _ type: Int32, _ iterator: inout DBusMessageIter) -> Bool
    {
        var copy = value
        return dbus_message_iter_append_basic(&iterator, type, &copy) != 0
    }

    private static func text(_ text: String, _ type: Int32, _ iterator: inout DBusMessageIter) -> Bool {
        text.withCString { pointer in
            var reference: UnsafePointer<CChar>? = pointer
            return dbus_message_iter_append_basic(&iterator, type, &reference) != 0
        }
    }

    private static func container(
        _ type: Int32, _ signature: String?, _ iterator: inout DBusMessageIter,
        _ body: (inout DBusMessageIter) -> Bool
    ) -> Bool {
        var inner = DBusMessageIter()
        let opened =
            if let signature {
                dbus_message_iter_open_container(&iterator, type, signature, &inner) != 0
            } else {
                dbus_message_iter_open_container(&iterator, type, nil, &inner) != 0
            }
        guard opened else { return false }
        guard body(&inner) else {
            dbus_message_iter_abandon_container(&iterator, &inner)
            return false
        }
        return dbus_message_iter_close_container(&iterator, &inner) != 0
    }

    private static func append(_ argument: DBusArgument, to iterator: inout DBusMessageIter) -> Bool {
        switch argument {
        case .byte(let value): return basic(value, MOBIUSD_DBUS_TYPE_BYTE, &iterator)
        case .boolean(let value): return basic(UInt32(value ? 1 : 0), MOBIUSD_DBUS_TYPE_BOOLEAN, &iterator)
        case .int16(let value): return basic(value, MOBIUSD_DBUS_TYPE_INT16, &iterator)
        case .uint16(let value): return basic(value, MOBIUSD_DBUS_TYPE_UINT16, &iterator)
        case .int32(let value): return basic(value, MOBIUSD_DBUS_TYPE_INT32, &iterator)
        case .uint32(let value): return basic(value, MOBIUSD_DBUS_TYPE_UINT32, &iterator)
        case .int64(let value): return basic(value, MOBIUSD_DBUS_TYPE_INT64, &iterator)
        case .uint64(let value): return basic(value, MOBIUSD_DBUS_TYPE_UINT64, &iterator)
        case .double(let value): return basic(value, MOBIUSD_DBUS_TYPE_DOUBLE, &iterator)
        case .string(let value): return text(value, MOBIUSD_DBUS_TYPE_STRING, &iterator)
        case .objectPath(let value): return text(value, MOBIUSD_DBUS_TYPE_OBJECT_PATH, &iterator)
        case .signature(let value): return text(value, MOBIUSD_DBUS_TYPE_SIGNATURE, &iterator)
        case .array(let element, let items):
            return container(MOBIUSD_DBUS_TYPE_ARRAY, element.signature, &iterator) { inner in
                items.allSatisfy { append($0, to: &inner) }
            }
        case .dictionary(let key, let value, let entries):
            let signature = "{" + key.signature + value.signature + "}"
            return container(MOBIUSD_DBUS_TYPE_ARRAY, signature, &iterator) { inner in
                entries.allSatisfy { entry in
                    container(MOBIUSD_DBUS_TYPE_DICT_ENTRY, nil, &inner) { pair in
                        append(entry.0, to: &pair) && append(entry.1, to: &pair)
                    }
                }
            }
        case .structure(let fields):
            return container(MOBIUSD_DBUS_TYPE_STRUCT, nil, &iterator) { inner in
                fields.allSatisfy { append($0, to: &inner) }
            }
        case .variant(let type, let value):
            return container(MOBIUSD_DBUS_TYPE_VARIANT, type.signature, &iterator) { inner in
                append(value, to: &inner)
            }
        }
    }
}
