/// Reads members of a JSON object.
struct KeyedValueDecodingContainer<Key: CodingKey>: KeyedDecodingContainerProtocol {
    let decoder: ValueDecoder
    let object: JSONObject

    var codingPath: [any CodingKey] { decoder.codingPath }

    var allKeys: [Key] { object.members.compactMap { Key(stringValue: $0.key) } }

    func contains(_ key: Key) -> Bool {
        object[key.stringValue] != nil
    }

    private func child(_ key: Key) throws -> ValueDecoder {
        guard let value = object[key.stringValue] else {
            throw DecodingError.keyNotFound(
                key,
                .init(
                    codingPath: codingPath,
                    debugDescription: "No value associated with key \(key.stringValue) (\"\(key.stringValue)\")."))
        }
        return decoder.child(value, at: key)
    }

    func decodeNil(forKey key: Key) throws -> Bool {
        try child(key).value.isNull
    }

    func decode(_ type: Bool.Type, forKey key: Key) throws -> Bool {
        try child(key).unboxBool()
    }

    func decode(_ type: String.Type, forKey key: Key) throws -> String {
        try child(key).unboxString()
    }

    func decode(_ type: Double.Type, forKey key: Key) throws -> Double {
        try child(key).unboxDouble()
    }

    func decode(_ type: Float.Type, forKey key: Key) throws -> Float {
        try child(key).unboxFloat()
    }

    func decode(_ type: Int.Type, forKey key: Key) throws -> Int {
        try child(key).unboxInteger(Int.self)
    }

    func decode(_ type: Int8.Type, forKey key: Key) throws -> Int8 {
        try child(key).unboxInteger(Int8.self)
    }

    func decode(_ type: Int16.Type, forKey key: Key) throws -> Int16 {
        try child(key).unboxInteger(Int16.self)
    }

    func decode(_ type: Int32.Type, forKey key: Key) throws -> Int32 {
        try child(key).unboxInteger(Int32.self)
    }

    func decode(_ type: Int64.Type, forKey key: Key) throws -> Int64 {
        try child(key).unboxInteger(Int64.self)
    }

    func decode(_ type: UInt.Type, forKey key: Key) throws -> UInt {
        try child(key).unboxInteger(UInt.self)
    }

    func decode(_ type: UInt8.Type, forKey key: Key) throws -> UInt8 {
        try child(key).unboxInteger(UInt8.self)
    }

    func decode(_ type: UInt16.Type, forKey key: Key) throws -> UInt16 {
        try child(key).unboxInteger(UInt16.self)
    }

    func decode(_ type: UInt32.Type, forKey key: Key) throws -> UInt32 {
        try child(key).unboxInteger(UInt32.self)
    }

    func decode(_ type: UInt64.Type, forKey key: Key) throws -> UInt64 {
        try child(key).unboxInteger(UInt64.self)
    }

    func decode<T: Decodable>(_ type: T.Type, forKey key: Key) throws -> T {
        try child(key).decodeValue(T.self)
    }

    func nestedContainer<NestedKey: CodingKey>(
        keyedBy type: NestedKey.Type, forKey key: Key
    ) throws -> KeyedDecodingContainer<NestedKey> {
        try child(key).container(keyedBy: NestedKey.self)
    }

    func nestedUnkeyedContainer(forKey key: Key) throws -> any UnkeyedDecodingContainer {
        try child(key).unkeyedContainer()
    }

    func superDecoder() throws -> any Decoder {
        decoder.child(object[JSONCodingKey.superKey.stringValue] ?? .null, at: JSONCodingKey.superKey)
    }

    func superDecoder(forKey key: Key) throws -> any Decoder {
        decoder.child(object[key.stringValue] ?? .null, at: key)
    }
}
