/// A JSON value: what RFC 8259 can express, with numbers and member order kept exactly.
///
/// `JSONValue(parsing:)` reads JSON text strictly, ``encoded()`` writes compact JSON, and
/// `parse(encode(v)) == v` for every value.
public enum JSONValue: Sendable, Hashable {
    /// `null`.
    case null
    /// `true` or `false`.
    case bool(Bool)
    /// A number, kept exactly (see ``JSONNumber``).
    case number(JSONNumber)
    /// A string.
    case string(String)
    /// An array.
    case array([JSONValue])
    /// An object with members in order (see ``JSONObject``).
    case object(JSONObject)
}

extension JSONValue {
    /// The member for `key` when this is an object that has it; otherwise `nil`.
    public subscript(key: String) -> JSONValue? {
        guard case .object(let object) = self else { return nil }
        return object[key]
    }

    /// The element at `index` when this is an array and the index is in range; otherwise `nil`.
    public subscript(index: Int) -> JSONValue? {
        guard case .array(let array) = self, array.indices.contains(index) else { return nil }
        return array[index]
    }

    /// The string, when this is a string.
    public var stringValue: String? {
        guard case .string(let value) = self else { return nil }
        return value
    }

    /// The number, when this is a number.
    public var numberValue: JSONNumber? {
        guard case .number(let value) = self else { return nil }
        return value
    }

    /// The number as `Int64`, when this is a number with an integral value in range.
    public var int64Value: Int64? { numberValue?.int64Value }

    /// The number as its nearest `Double`, when this is a number.
    public var doubleValue: Double? { numberValue?.doubleValue }

    /// The Boolean, when this is `true` or `false`.
    public var boolValue: Bool? {
        guard case .bool(let value) = self else { return nil }
        return value
    }

    /// Whether this is `null`.
    public var isNull: Bool {
        if case .null = self { return true }
        return false
    }

    /// The object, when this is an object.
    public var objectValue: JSONObject? {
        guard case .object(let value) = self else { return nil }
        return value
    }

    /// The elements, when this is an array.
    public var arrayValue: [JSONValue]? {
        guard case .array(let value) = self else { return nil }
        return value
    }
}
