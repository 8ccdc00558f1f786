internal import CDBus
import MobiusJSON

/// Walks a message's values, counting them against the limits. Recursion depth is bounded by the message's
/// nesting, which libdbus has already validated (at most 64 levels), and again by `DBusReadLimits.maxDepth`.
struct DBusArgumentReader {
    let limits: DBusReadLimits
    var values = 0
    var stringBytes = 0

    init(limits: DBusReadLimits) {
        self.limits = limits
    }

    private mutating func count(_ more: Int) throws(DBusMessage.ReadProblem) {
        values += more
        guard values <= limits.maxValues else {
            throw DBusMessage.ReadProblem(description: "more than \(limits.maxValues) values (maxValues)")
        }
    }

    private mutating func text(_ iterator: inout DBusMessageIter) throws(DBusMessage.ReadProblem) -> String {
        var pointer: UnsafePointer<CChar>? = nil
        dbus_message_iter_get_basic(&iterator, &pointer)
        guard let pointer else { return "" }
        // libdbus has validated the text as UTF-8; decoding would replace anything else rather than trust it.
        let text = String(cString: pointer)
        stringBytes += text.utf8.count
        guard stringBytes <= limits.maxStringBytes else {
            throw DBusMessage.ReadProblem(
                description: "more than \(limits.maxStringBytes) bytes of strings (maxStringBytes)")
        }
        return text
    }

    private func basic<T: FixedWidthInteger>(_ iterator: inout DBusMessageIter, _: T.Type) -> T {
        var value: T = 0
        dbus_message_iter_get_basic(&iterator, &value)
        return value
    }

    mutating func value(_ iterator: inout DBusMessageIter, depth: Int) throws(DBusMessage.ReadProblem) -> JSONValue {
        guard depth <= DBusReadLimits.maxDepth else {
            throw DBusMessage.ReadProblem(description: "nested deeper than \(DBusReadLimits.maxDepth) levels")
        }
        try count(1)
        let type = dbus_message_iter_get_arg_type(&iterator)
        switch type {
        case MOBIUSD_DBUS_TYPE_BYTE: return .number(JSONNumber(Int64(basic(&iterator, UInt8.self))))
        case MOBIUSD_DBUS_TYPE_BOOLEAN: return .bool(basic(&iterator, UInt32.self) != 0)
        case MOBIUSD_DBUS_TYPE_INT16: return .number(JSONNumber(Int64(basic(&iterator, Int16.self))))
        case MOBIUSD_DBUS_TYPE_UINT16: return .number(JSONNumber(Int64(basic(&iterator, UInt16.self))))
        case MOBIUSD_DBUS_TYPE_INT32: return .number(JSONNumber(Int64(basic(&iterator, Int32.self))))
        case MOBIUSD_DBUS_TYPE_UINT32: return .number(JSONNumber(Int64(basic(&iterator, UInt32.self))))
        case MOBIUSD_DBUS_TYPE_INT64: return .number(JSONNumber(basic(&iterator, Int64.self)))
        case MOBIUSD_DBUS_TYPE_UINT64: return .number(JSONNumber(basic(&iterator, UInt64.self)))
        case MOBIUSD_DBUS_TYPE_DOUBLE:
            var number = 0.0
            dbus_message_iter_get_basic(&iterator, &number)
            return JSONNumber(number).map(JSONValue.number) ?? .null
        case MOBIUSD_DBUS_TYPE_STRING, MOBIUSD_DBUS_TYPE_OBJECT_PATH, MOBIUSD_DBUS_TYPE_SIGNATURE:
            return .string(try text(&iterator))
        case MOBIUSD_DBUS_TYPE_ARRAY:
            return try array(&iterator, depth: depth)
        case MOBIUSD_DBUS_TYPE_STRUCT:
            var inner = DBusMessageIter()
            dbus_message_iter_recurse(&iterator, &inner)
            var fields: [JSONValue] = []
            while dbus_message_iter_get_arg_type(&inner) != MOBIUSD_DBUS_TYPE_INVALID {
                fields.append(try value(&inner, depth: depth + 1))
                dbus_message_iter_next(&inner)
            }
            return .array(fields)
        case MOBIUSD_DBUS_TYPE_VARIANT:
            var inner = DBusMessageIter()
            dbus_message_iter_recurse(&iterator, &inner)
            return try value(&inner, depth: depth + 1)
        default:
            // A unix fd (never dup'd out of the message), or a type this libdbus knows and we do not.
            return .null
        }
    }

    private mutating func array(
        _ iterator: inout DBusMessageIter, depth: Int
    ) throws(DBusMessage.ReadProblem)
        -> JSONValue
    {
        let element = dbus_message_iter_get_element_type(&iterator)
        var inner = DBusMessageIter()
        dbus_message_iter_recurse(&iterator, &inner)
        if element == MOBIUSD_DBUS_TYPE_DICT_ENTRY {
            var object = JSONObject()
            while dbus_message_iter_get_arg_type(&inner) != MOBIUSD_DBUS_TYPE_INVALID {
                var entry = DBusMessageIter()
                dbus_message_iter_recurse(&inner, &entry)
                let key = try value(&entry, depth: depth + 1)
                dbus_message_iter_next(&entry)
                let item = try value(&entry, depth: depth + 1)
                object[Self.keyText(key)] = item
                dbus_message_iter_next(&inner)
            }
            return .object(object)
        }
        if let fixed = try fixedArray(&inner, element: element) { return fixed }
        var items: [JSONValue] = []
        while dbus_message_iter_get_arg_type(&inner) != MOBIUSD_DBUS_TYPE_INVALID {
            items.append(try value(&inner, depth: depth + 1))
            dbus_message_iter_next(&inner)
        }
        return .array(items)
    }

    /// Arrays of fixed-size numbers (byte arrays above all) in one read, counted before anything is built.
    private mutating func fixedArray(
        _ inner: inout DBusMessageIter, element: Int32
    ) throws(DBusMessage.ReadProblem)
        -> JSONValue?
    {
        func read<T: BitwiseCopyable>(
            _: T.Type, _ convert: (T) -> JSONValue
        ) throws(DBusMessage.ReadProblem) -> JSONValue {
            var pointer: UnsafeMutableRawPointer? = nil
            var length: Int32 = 0
            dbus_message_iter_get_fixed_array(&inner, &pointer, &length)
            try count(Int(length))
            guard let pointer, length > 0 else { return .array([]) }
            let buffer = UnsafeBufferPointer(start: pointer.assumingMemoryBound(to: T.self), count: Int(length))
            return .array(buffer.map(convert))
        }
        switch element {
        case MOBIUSD_DBUS_TYPE_BYTE: return try read(UInt8.self) { .number(JSONNumber(Int64($0))) }
        case MOBIUSD_DBUS_TYPE_BOOLEAN: return try read(UInt32.self) { .bool($0 != 0) }
        case MOBIUSD_DBUS_TYPE_INT16: return try read(Int16.self) { .number(JSONNumber(Int64($0))) }
        case MOBIUSD_DBUS_TYPE_UINT16: return try read(UInt16.self) { .number(JSONNumber(Int64($0))) }
        case MOBIUSD_DBUS_TYPE_INT32: return try read(Int32.self) { .number(JSONNumber(Int64($0))) }
        case MOBIUSD_DBUS_TYPE_UINT32: return try read(UInt32.self) { .number(JSONNumber(Int64($0))) }
        case MOBIUSD_DBUS_TYPE_INT64: return try read(Int64.self) { .number(JSONNumber($0)) }
        case MOBIUSD_DBUS_TYPE_UINT64: return try read(UInt64.self) { .number(JSONNumber($0)) }
        case MOBIUSD_DBUS_TYPE_DOUBLE: return try read(Double.self) { JSONNumber($0).map(JSONValue.number) ?? .null }
        default: return nil
        }
    }

    /// A dict key as object-member text: strings as they are, numbers as their JSON text, booleans as
    /// `true`/`false`.
    private static func keyText(_ key: JSONValue) -> String {
        switch key {
        case .string(let text): text
        case .number(let number): number.literal
        case .bool(let flag): flag ? "true" : "false"
        default: "null"
        }
    }
}
