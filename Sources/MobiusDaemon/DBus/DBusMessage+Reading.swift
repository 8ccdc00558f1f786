internal import CDBus
import MobiusJSON

extension DBusMessage {
    /// Why a message was not converted.
    struct ReadProblem: Error, CustomStringConvertible {
        let description: String
    }

    /// The message's arguments as JSON (docs/protocol.md 3): integers exact, doubles as numbers (NaN and infinities
    /// as `null`, which JSON lacks), booleans, strings (object paths, signatures too), arrays, dicts as objects
    /// (keys as their text), structs as arrays, variants as their value, byte arrays as arrays of numbers, unix
    /// fds as `null` (never taken out of the message, so no descriptor is opened).
    ///
    /// Returns the values and their cost (an estimate of their size in bytes, for the bus's in-flight budget).
    /// - Throws: `ReadProblem` when the message has more values or string bytes than `limits` allow.
    func arguments(limits: DBusReadLimits) throws(ReadProblem) -> (values: [JSONValue], cost: Int) {
        var reader = DBusArgumentReader(limits: limits)
        var iterator = DBusMessageIter()
        guard dbus_message_iter_init(raw, &iterator) != 0 else { return ([], 0) }
        var values: [JSONValue] = []
        while dbus_message_iter_get_arg_type(&iterator) != MOBIUSD_DBUS_TYPE_INVALID {
            values.append(try reader.value(&iterator, depth: 1))
            dbus_message_iter_next(&iterator)
        }
        return (values, reader.values * DBusReadLimits.valueCost + reader.stringBytes)
    }

    /// The header fields a match rule looks at, with the first `stringArguments` arguments' text when they are
    /// strings.
    func header(stringArguments count: Int) -> DBusSignalHeader {
        var header = DBusSignalHeader(sender: sender, path: path, interface: interface, member: member)
        guard count > 0 else { return header }
        var iterator = DBusMessageIter()
        guard dbus_message_iter_init(raw, &iterator) != 0 else { return header }
        while header.stringArguments.count < count {
            let type = dbus_message_iter_get_arg_type(&iterator)
            if type == MOBIUSD_DBUS_TYPE_INVALID { break }
            if type == MOBIUSD_DBUS_TYPE_STRING {
                var pointer: UnsafePointer<CChar>? = nil
                dbus_message_iter_get_basic(&iterator, &pointer)
                header.stringArguments.append(pointer.map { String(cString: $0) })
            } else {
                header.stringArguments.append(nil)
            }
            dbus_message_iter_next(&iterator)
        }
        return header
    }
}
