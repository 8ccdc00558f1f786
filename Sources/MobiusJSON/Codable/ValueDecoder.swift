/// The `Decoder` behind ``JSONValueDecoder``: one per value being decoded.
struct ValueDecoder: Decoder {
    let value: JSONValue
    let codingPath: [any CodingKey]
    let userInfo: [CodingUserInfoKey: Any]
    let enumShape: JSONEnumShape
    /// The type whose `init(from:)` this decoder was handed to, when it was handed to one.
    private(set) var decoding: Any.Type?

    init(
        value: JSONValue, codingPath: [any CodingKey], userInfo: [CodingUserInfoKey: Any], enumShape: JSONEnumShape
    ) {
        self.value = value
        self.codingPath = codingPath
        self.userInfo = userInfo
        self.enumShape = enumShape
    }

    func container<Key: CodingKey>(keyedBy type: Key.Type) throws -> KeyedDecodingContainer<Key> {
        guard case .object(let object) = value else {
            throw ValueDecoder.mismatch([String: JSONValue].self, found: value, path: codingPath)
        }
        if enumShape == .typeTagged, let decoding, SynthesizedEnum.isCaseKeys(Key.self, of: decoding) {
            return KeyedDecodingContainer(try KeyedValueDecodingContainer<Key>(decoder: self, tagged: object))
        }
        return KeyedDecodingContainer(KeyedValueDecodingContainer<Key>(decoder: self, object: object))
    }

    func unkeyedContainer() throws -> any UnkeyedDecodingContainer {
        guard case .array(let elements) = value else {
            throw ValueDecoder.mismatch([JSONValue].self, found: value, path: codingPath)
        }
        return UnkeyedValueDecodingContainer(decoder: self, elements: elements)
    }

    func singleValueContainer() throws -> any SingleValueDecodingContainer {
        self
    }

    func child(_ value: JSONValue, at key: any CodingKey) -> ValueDecoder {
        ValueDecoder(value: value, codingPath: codingPath + [key], userInfo: userInfo, enumShape: enumShape)
    }

    /// A decoder for `value` at this decoder's own path: a flattened case payload (``JSONEnumShape/typeTagged``).
    func sibling(_ value: JSONValue) -> ValueDecoder {
        ValueDecoder(value: value, codingPath: codingPath, userInfo: userInfo, enumShape: enumShape)
    }

    func decodeValue<T: Decodable>(_ type: T.Type) throws -> T {
        if T.self == JSONValue.self { return value as! T }
        var decoder = self
        decoder.decoding = T.self
        return try T(from: decoder)
    }

    // MARK: Errors, worded like Foundation's

    static func mismatch(_ type: Any.Type, found value: JSONValue, path: [any CodingKey]) -> DecodingError {
        if value.isNull {
            return DecodingError.valueNotFound(
                type,
                .init(
                    codingPath: path, debugDescription: "Cannot get value of type \(type) -- found null value instead"))
        }
        return DecodingError.typeMismatch(
            type,
            .init(
                codingPath: path, debugDescription: "Expected to decode \(type) but found \(describe(value)) instead."))
    }

    static func describe(_ value: JSONValue) -> String {
        switch value {
        case .null: return "null"
        case .bool: return "bool"
        case .number: return "number"
        case .string: return "a string"
        case .array: return "an array"
        case .object: return "a dictionary"
        }
    }

    // MARK: Primitives

    func number(_ type: Any.Type) throws -> JSONNumber {
        guard case .number(let number) = value else {
            throw ValueDecoder.mismatch(type, found: value, path: codingPath)
        }
        return number
    }

    func unboxInteger<T: FixedWidthInteger>(_ type: T.Type) throws -> T {
        let number = try number(type)
        let result: T?
        if let signed = number.int64Value {
            result = T(exactly: signed)
        } else if let unsigned = number.uint64Value {
            result = T(exactly: unsigned)
        } else {
            result = nil
        }
        guard let result else {
            throw DecodingError.dataCorrupted(
                .init(codingPath: codingPath, debugDescription: "Number \(number) is not representable in \(type)."))
        }
        return result
    }

    func unboxDouble() throws -> Double {
        let number = try number(Double.self)
        let result = number.doubleValue
        guard result.isFinite else {
            throw DecodingError.dataCorrupted(
                .init(codingPath: codingPath, debugDescription: "Number \(number) is not representable in Double."))
        }
        return result
    }

    func unboxFloat() throws -> Float {
        let number = try number(Float.self)
        let result = Float(number.doubleValue)
        guard result.isFinite else {
            throw DecodingError.dataCorrupted(
                .init(codingPath: codingPath, debugDescription: "Number \(number) is not representable in Float."))
        }
        return result
    }

    func unboxBool() throws -> Bool {
        guard case .bool(let result) = value else {
            throw ValueDecoder.mismatch(Bool.self, found: value, path: codingPath)
        }
        return result
    }

    func unboxString() throws -> String {
        guard case .string(let result) = value else {
            throw ValueDecoder.mismatch(String.self, found: value, path: codingPath)
        }
        return result
    }
}
