/// Reads members of a JSON object.
struct KeyedValueDecodingContainer<Key: CodingKey>: KeyedDecodingContainerProtocol {
    /// What the object is to a synthesized enum read in ``JSONEnumShape/typeTagged``.
    enum Role {
        /// An object of its own.
        case plain
        /// The enum: `{CASE: {…}}` made from `{"type":CASE,…}`.
        case taggedCase
        /// The case's associated values: the tagged object without its `type`.
        case taggedPayload
    }

    let decoder: ValueDecoder
    let object: JSONObject
    let role: Role

    init(decoder: ValueDecoder, object: JSONObject, role: Role = .plain) {
        self.decoder = decoder
        self.object = object
        self.role = role
    }

    /// The enum's container over `{"type":CASE,…}`, seen as Swift's `{CASE:{…}}`.
    ///
    /// - Throws: `DecodingError` when `type` is missing, not a string, or names no case.
    init(decoder: ValueDecoder, tagged object: JSONObject) throws {
        let tag = JSONCodingKey(stringValue: SynthesizedEnum.tag)
        guard let name = object[tag.stringValue] else {
            throw DecodingError.keyNotFound(
                tag, .init(codingPath: decoder.codingPath, debugDescription: "No case name (\"type\")."))
        }
        guard case .string(let caseName) = name else {
            throw ValueDecoder.mismatch(String.self, found: name, path: decoder.codingPath + [tag])
        }
        guard Key(stringValue: caseName) != nil else {
            throw DecodingError.dataCorrupted(
                .init(codingPath: decoder.codingPath + [tag], debugDescription: "no case is named \"\(caseName)\""))
        }
        var payload = object
        _ = payload.removeValue(forKey: tag.stringValue)
        self.init(decoder: decoder, object: [caseName: .object(payload)], role: .taggedCase)
    }

    var codingPath: [any CodingKey] { decoder.codingPath }

    var allKeys: [Key] { object.members.compactMap { Key(stringValue: $0.key) } }

    func contains(_ key: Key) -> Bool {
        object[key.stringValue] != nil
    }

    private func child(_ key: Key) throws -> ValueDecoder {
        if role == .taggedPayload, key.stringValue == SynthesizedEnum.tag {
            throw DecodingError.dataCorrupted(
                .init(
                    codingPath: codingPath,
                    debugDescription:
                        "the case has a value labelled \"type\", which the type-tagged shape uses for the case name"))
        }
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
        guard let flattened = flattened(key) else { return try child(key).decodeValue(T.self) }
        do {
            return try flattened.decodeValue(T.self)
        } catch DecodingError.typeMismatch(_, let context) where context.codingPath.count == codingPath.count {
            // Not an object's worth of value: the `_0` member was needed.
            return try child(key).decodeValue(T.self)
        }
    }

    func decodeIfPresent<T: Decodable>(_ type: T.Type, forKey key: Key) throws -> T? {
        guard let flattened = flattened(key) else {
            guard contains(key), try !decodeNil(forKey: key) else { return nil }
            return try child(key).decodeValue(T.self)
        }
        do {
            return try flattened.decodeValue(T.self)
        } catch DecodingError.typeMismatch(_, let context) where context.codingPath.count == codingPath.count {
            return nil
        }
    }

    /// For the only unlabelled value of a `type`-tagged case (`_0`, without `_1`) that is not written as `_0`: the
    /// payload's other members, as the value's own object (`{"type":"add","title":"milk"}` for `case add(Item)`).
    private func flattened(_ key: Key) -> ValueDecoder? {
        guard role == .taggedPayload, key.stringValue == "_0", object["_0"] == nil, object["_1"] == nil,
            !object.isEmpty
        else { return nil }
        return decoder.sibling(.object(object))
    }

    func nestedContainer<NestedKey: CodingKey>(
        keyedBy type: NestedKey.Type, forKey key: Key
    ) throws -> KeyedDecodingContainer<NestedKey> {
        let child = try child(key)
        if role == .taggedCase, case .object(let payload) = child.value {
            return KeyedDecodingContainer(
                KeyedValueDecodingContainer<NestedKey>(decoder: child, object: payload, role: .taggedPayload))
        }
        return try child.container(keyedBy: NestedKey.self)
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
