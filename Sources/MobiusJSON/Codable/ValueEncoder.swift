/// The `Encoder` behind ``JSONValueEncoder``: one per value being encoded.
final class ValueEncoder: Encoder {
    let codingPath: [any CodingKey]
    let userInfo: [CodingUserInfoKey: Any]
    var storage: EncodedItem?

    init(codingPath: [any CodingKey], userInfo: [CodingUserInfoKey: Any]) {
        self.codingPath = codingPath
        self.userInfo = userInfo
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
        let child = ValueEncoder(codingPath: codingPath + [key], userInfo: userInfo)
        try value.encode(to: child)
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
        guard value.isFinite, let number = JSONNumber(literal: value.description) else {
            throw EncodingError.invalidValue(
                value,
                EncodingError.Context(
                    codingPath: path, debugDescription: "Unable to encode Float.\(value) directly in JSON."))
        }
        return .number(number)
    }

    static func box(_ value: some FixedWidthInteger) -> JSONValue {
        if let signed = Int64(exactly: value) { return .number(JSONNumber(signed)) }
        return .number(JSONNumber(UInt64(value)))
    }
}
