import MobiusJSON

@testable import MobiusDaemon

/// What reading a message of typed values must give, computed from the values, as docs/dbus.md states the mapping:
/// integers exact, doubles as numbers (NaN and infinities `null`), strings, object paths and signatures as strings,
/// arrays and structs as arrays, dicts as objects keyed by the key's text, variants as their content.
enum DBusReference {
    static func json(_ argument: DBusArgument) -> JSONValue {
        switch argument {
        case .byte(let value): return .number(JSONNumber(Int64(value)))
        case .boolean(let value): return .bool(value)
        case .int16(let value): return .number(JSONNumber(Int64(value)))
        case .uint16(let value): return .number(JSONNumber(Int64(value)))
        case .int32(let value): return .number(JSONNumber(Int64(value)))
        case .uint32(let value): return .number(JSONNumber(Int64(value)))
        case .int64(let value): return .number(JSONNumber(value))
        case .uint64(let value): return .number(JSONNumber(value))
        case .double(let value): return JSONNumber(value).map(JSONValue.number) ?? .null
        case .string(let text), .objectPath(let text), .signature(let text): return .string(text)
        case .array(_, let items): return .array(items.map(json))
        case .structure(let fields): return .array(fields.map(json))
        case .variant(_, let content): return json(content)
        case .dictionary(_, _, let entries):
            var object = JSONObject()
            for (key, value) in entries { object[keyText(json(key))] = json(value) }
            return .object(object)
        }
    }

    /// A dict key as a member name: strings as they are, numbers as their JSON text, booleans as `true`/`false`.
    static func keyText(_ key: JSONValue) -> String {
        switch key {
        case .string(let text): return text
        case .number(let number): return number.literal
        case .bool(let flag): return flag ? "true" : "false"
        default: return "null"
        }
    }

    /// The values a reader counts against `maxValues`: each value and each container.
    static func valueCount(_ argument: DBusArgument) -> Int {
        switch argument {
        case .array(_, let items): return 1 + items.map(valueCount).reduce(0, +)
        case .structure(let fields): return 1 + fields.map(valueCount).reduce(0, +)
        case .variant(_, let content): return 1 + valueCount(content)
        case .dictionary(_, _, let entries): return 1 + entries.map { valueCount($0.0) + valueCount($0.1) }.reduce(0, +)
        default: return 1
        }
    }

    /// The bytes of text a reader counts against `maxStringBytes`.
    static func stringBytes(_ argument: DBusArgument) -> Int {
        switch argument {
        case .string(let text), .objectPath(let text), .signature(let text): return text.utf8.count
        case .array(_, let items), .structure(let items): return items.map(stringBytes).reduce(0, +)
        case .variant(_, let content): return stringBytes(content)
        case .dictionary(_, _, let entries): return entries.map { stringBytes($0.0) + stringBytes($0.1) }.reduce(0, +)
        default: return 0
        }
    }

    /// Whether a NaN or infinity is in the value (its JSON is then `null`, or a key `null`).
    static func hasNonFinite(_ argument: DBusArgument) -> Bool {
        switch argument {
        case .double(let value): return !value.isFinite
        case .array(_, let items), .structure(let items): return items.contains(where: hasNonFinite)
        case .variant(_, let content): return hasNonFinite(content)
        case .dictionary(_, _, let entries): return entries.contains { hasNonFinite($0.0) || hasNonFinite($0.1) }
        default: return false
        }
    }
}
