extension ValueEncoder: SingleValueEncodingContainer {
    func encodeNil() throws {
        storage = .value(.null)
    }

    func encode(_ value: Bool) throws {
        storage = .value(.bool(value))
    }

    func encode(_ value: String) throws {
        storage = .value(.string(value))
    }

    func encode(_ value: Double) throws {
        storage = .value(try ValueEncoder.box(value, path: codingPath))
    }

    func encode(_ value: Float) throws {
        storage = .value(try ValueEncoder.box(value, path: codingPath))
    }

    func encode(_ value: Int) throws {
        storage = .value(ValueEncoder.box(value))
    }

    func encode(_ value: Int8) throws {
        storage = .value(ValueEncoder.box(value))
    }

    func encode(_ value: Int16) throws {
        storage = .value(ValueEncoder.box(value))
    }

    func encode(_ value: Int32) throws {
        storage = .value(ValueEncoder.box(value))
    }

    func encode(_ value: Int64) throws {
        storage = .value(ValueEncoder.box(value))
    }

    func encode(_ value: UInt) throws {
        storage = .value(ValueEncoder.box(value))
    }

    func encode(_ value: UInt8) throws {
        storage = .value(ValueEncoder.box(value))
    }

    func encode(_ value: UInt16) throws {
        storage = .value(ValueEncoder.box(value))
    }

    func encode(_ value: UInt32) throws {
        storage = .value(ValueEncoder.box(value))
    }

    func encode(_ value: UInt64) throws {
        storage = .value(ValueEncoder.box(value))
    }

    func encode<T: Encodable>(_ value: T) throws {
        if let json = value as? JSONValue {
            storage = .value(json)
            return
        }
        try descend(value)
        depth += 1
        defer { depth -= 1 }
        try encodeValue(value)
    }
}
