/// The `Encoder` behind ``JSONValueEncoder``: one per value being encoded.
final class ValueEncoder: Encoder {
    let codingPath: [any CodingKey]
    let userInfo: [CodingUserInfoKey: Any]
    var storage: EncodedItem?
    /// How many `encode(to:)` calls enclose this encoder's, and how many may: input never drives recursion past
    /// the bound (a recursive Swift type nested deeper than JSON's nesting limit throws instead).
    var depth = 0
    let maxDepth: Int
    let enumShape: JSONEnumShape

    init(
        codingPath: [any CodingKey], userInfo: [CodingUserInfoKey: Any], depth: Int = 0, maxDepth: Int,
        enumShape: JSONEnumShape
    ) {
        self.codingPath = codingPath
        self.userInfo = userInfo
        self.depth = depth
        self.maxDepth = maxDepth
        self.enumShape = enumShape
    }

    /// Counts one more level of nesting, throwing past `maxDepth`.
    func descend(_ value: Any) throws {
        guard depth < maxDepth else {
            throw EncodingError.invalidValue(
                value,
                EncodingError.Context(
                    codingPath: codingPath, debugDescription: "The value nests deeper than \(maxDepth) levels."))
        }
    }

    /// An encoder for a value nested one level below this one's.
    func child(at key: any CodingKey) -> ValueEncoder {
        ValueEncoder(
            codingPath: codingPath + [key], userInfo: userInfo, depth: depth + 1, maxDepth: maxDepth,
            enumShape: enumShape)
    }

    /// Runs `value`'s `encode(to:)` on this encoder; a synthesized enum's `{CASE:{…}}` then becomes
    /// `{"type":CASE,…}` in ``JSONEnumShape/typeTagged``.
    func encodeValue<T: Encodable>(_ value: T) throws {
        try value.encode(to: self)
        guard case .object(let box)? = storage, let name = box.enumCase, box.keys == [name],
            SynthesizedEnum.isEnum(T.self), case .object(let payload) = box.items[0].resolved()
        else { return }
        if payload[SynthesizedEnum.tag] != nil {
            throw EncodingError.invalidValue(
                value,
                EncodingError.Context(
                    codingPath: codingPath + [JSONCodingKey(stringValue: name)],
                    debugDescription:
                        "the case \(name) has a value labelled \"type\", which the type-tagged shape uses for the case name"
                ))
        }
        var members: [(key: String, value: JSONValue)] = [(SynthesizedEnum.tag, .string(name))]
        if payload.count == 1, case .object(let only)? = payload["_0"], only[SynthesizedEnum.tag] == nil {
            members += only.members
        } else {
            members += payload.members
        }
        storage = .value(.object(JSONObject(uniqueMembers: members)))
    }

    func container<Key: CodingKey>(keyedBy type: Key.Type) -> KeyedEncodingContainer<Key> {
        let box: ObjectBox
        if case .object(let existing) = storage {
            box = existing
        } else {
            box = ObjectBox()
            storage = .object(box)
        }
        return KeyedEncodingContainer(KeyedValueEncodingContainer<Key>(encoder: self, box: box, codingPath: codingPath))
    }

    func unkeyedContainer() -> any UnkeyedEncodingContainer {
        let box: ArrayBox
        if case .array(let existing) = storage {
            box = existing
        } else {
            box = ArrayBox()
            storage = .array(box)
        }
        return UnkeyedValueEncodingContainer(encoder: self, box: box, codingPath: codingPath)
    }

    func singleValueContainer() -> any SingleValueEncodingContainer {
        self
    }

    /// Encodes a child value at `key`, returning what it produced.
    func encodeChild(_ value: some Encodable, at key: any CodingKey) throws -> EncodedItem {
        if let json = value as? JSONValue { return .value(json) }
        try descend(value)
        let child = child(at: key)
        try child.encodeValue(value)
        return child.storage ?? .object(ObjectBox())
    }

    // MARK: Primitives

    static func box(_ value: Double, path: [any CodingKey]) throws -> JSONValue {
        guard let number = JSONNumber(value) else {
            throw EncodingError.invalidValue(
                value,
                EncodingError.Context(
                    codingPath: path, debugDescription: "Unable to encode Double.\(value) directly in JSON."))
        }
        return .number(number)
    }

    static func box(_ value: Float, path: [any CodingKey]) throws -> JSONValue {
        guard value.isFinite, let number = JSONNumber(literal: Self.floatText(value)) else {
            throw EncodingError.invalidValue(
                value,
                EncodingError.Context(
                    codingPath: path, debugDescription: "Unable to encode Float.\(value) directly in JSON."))
        }
        return .number(number)
    }

    /// A `Float`'s own shortest text without a trailing `.0`, as Foundation's `JSONEncoder` writes it.
    static func floatText(_ value: Float) -> String {
        let text = value.description
        return text.hasSuffix(".0") ? String(text.dropLast(2)) : text
    }

    static func box(_ value: some FixedWidthInteger) -> JSONValue {
        if let signed = Int64(exactly: value) { return .number(JSONNumber(signed)) }
        return .number(JSONNumber(UInt64(value)))
    }
}
