/// Reads elements of a JSON array in order.
struct UnkeyedValueDecodingContainer: UnkeyedDecodingContainer {
    let decoder: ValueDecoder
    let elements: [JSONValue]
    private(set) var currentIndex = 0

    init(decoder: ValueDecoder, elements: [JSONValue]) {
        self.decoder = decoder
        self.elements = elements
    }

    var codingPath: [any CodingKey] { decoder.codingPath }
    var count: Int? { elements.count }
    var isAtEnd: Bool { currentIndex >= elements.count }

    /// The decoder for the next element; advances only when `body` succeeds.
    private mutating func next<T>(_ type: Any.Type, _ body: (ValueDecoder) throws -> T) throws -> T {
        let key = JSONCodingKey(intValue: currentIndex)
        guard !isAtEnd else {
            throw DecodingError.valueNotFound(
                type, .init(codingPath: codingPath + [key], debugDescription: "Unkeyed container is at end."))
        }
        let result = try body(decoder.child(elements[currentIndex], at: key))
        currentIndex += 1
        return result
    }

    mutating func decodeNil() throws -> Bool {
        guard !isAtEnd else {
            throw DecodingError.valueNotFound(
                Any?.self,
                .init(
                    codingPath: codingPath + [JSONCodingKey(intValue: currentIndex)],
                    debugDescription: "Unkeyed container is at end."))
        }
        if elements[currentIndex].isNull {
            currentIndex += 1
            return true
        }
        return false
    }

    mutating func decode(_ type: Bool.Type) throws -> Bool {
        try next(type) { try $0.unboxBool() }
    }

    mutating func decode(_ type: String.Type) throws -> String {
        try next(type) { try $0.unboxString() }
    }

    mutating func decode(_ type: Double.Type) throws -> Double {
        try next(type) { try $0.unboxDouble() }
    }

    mutating func decode(_ type: Float.Type) throws -> Float {
        try next(type) { try $0.unboxFloat() }
    }

    mutating func decode(_ type: Int.Type) throws -> Int {
        try next(type) { try $0.unboxInteger(Int.self) }
    }

    mutating func decode(_ type: Int8.Type) throws -> Int8 {
        try next(type) { try $0.unboxInteger(Int8.self) }
    }

    mutating func decode(_ type: Int16.Type) throws -> Int16 {
        try next(type) { try $0.unboxInteger(Int16.self) }
    }

    mutating func decode(_ type: Int32.Type) throws -> Int32 {
        try next(type) { try $0.unboxInteger(Int32.self) }
    }

    mutating func decode(_ type: Int64.Type) throws -> Int64 {
        try next(type) { try $0.unboxInteger(Int64.self) }
    }

    mutating func decode(_ type: UInt.Type) throws -> UInt {
        try next(type) { try $0.unboxInteger(UInt.self) }
    }

    mutating func decode(_ type: UInt8.Type) throws -> UInt8 {
        try next(type) { try $0.unboxInteger(UInt8.self) }
    }

    mutating func decode(_ type: UInt16.Type) throws -> UInt16 {
        try next(type) { try $0.unboxInteger(UInt16.self) }
    }

    mutating func decode(_ type: UInt32.Type) throws -> UInt32 {
        try next(type) { try $0.unboxInteger(UInt32.self) }
    }

    mutating func decode(_ type: UInt64.Type) throws -> UInt64 {
        try next(type) { try $0.unboxInteger(UInt64.self) }
    }

    mutating func decode<T: Decodable>(_ type: T.Type) throws -> T {
        try next(type) { try $0.decodeValue(T.self) }
    }

    mutating func nestedContainer<NestedKey: CodingKey>(
        keyedBy type: NestedKey.Type
    ) throws -> KeyedDecodingContainer<NestedKey> {
        try next(JSONObject.self) { try $0.container(keyedBy: NestedKey.self) }
    }

    mutating func nestedUnkeyedContainer() throws -> any UnkeyedDecodingContainer {
        try next([JSONValue].self) { try $0.unkeyedContainer() }
    }

    mutating func superDecoder() throws -> any Decoder {
        try next(JSONValue.self) { $0 }
    }
}
