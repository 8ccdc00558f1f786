/// Appends array elements to an ``ArrayBox``.
struct UnkeyedValueEncodingContainer: UnkeyedEncodingContainer {
    let encoder: ValueEncoder
    let box: ArrayBox
    let codingPath: [any CodingKey]

    var count: Int { box.items.count }

    private var nextKey: JSONCodingKey { JSONCodingKey(intValue: box.items.count) }

    mutating func encodeNil() throws {
        box.items.append(.value(.null))
    }

    mutating func encode(_ value: Bool) throws {
        box.items.append(.value(.bool(value)))
    }

    mutating func encode(_ value: String) throws {
        box.items.append(.value(.string(value)))
    }

    mutating func encode(_ value: Double) throws {
        box.items.append(.value(try ValueEncoder.box(value, path: codingPath + [nextKey])))
    }

    mutating func encode(_ value: Float) throws {
        box.items.append(.value(try ValueEncoder.box(value, path: codingPath + [nextKey])))
    }

    mutating func encode(_ value: Int) throws {
        box.items.append(.value(ValueEncoder.box(value)))
    }

    mutating func encode(_ value: Int8) throws {
        box.items.append(.value(ValueEncoder.box(value)))
    }

    mutating func encode(_ value: Int16) throws {
        box.items.append(.value(ValueEncoder.box(value)))
    }

    mutating func encode(_ value: Int32) throws {
        box.items.append(.value(ValueEncoder.box(value)))
    }

    mutating func encode(_ value: Int64) throws {
        box.items.append(.value(ValueEncoder.box(value)))
    }

    mutating func encode(_ value: UInt) throws {
        box.items.append(.value(ValueEncoder.box(value)))
    }

    mutating func encode(_ value: UInt8) throws {
        box.items.append(.value(ValueEncoder.box(value)))
    }

    mutating func encode(_ value: UInt16) throws {
        box.items.append(.value(ValueEncoder.box(value)))
    }

    mutating func encode(_ value: UInt32) throws {
        box.items.append(.value(ValueEncoder.box(value)))
    }

    mutating func encode(_ value: UInt64) throws {
        box.items.append(.value(ValueEncoder.box(value)))
    }

    mutating func encode<T: Encodable>(_ value: T) throws {
        box.items.append(try encoder.encodeChild(value, at: nextKey))
    }

    mutating func nestedContainer<NestedKey: CodingKey>(
        keyedBy keyType: NestedKey.Type
    ) -> KeyedEncodingContainer<NestedKey> {
        let nested = ObjectBox()
        let path = codingPath + [nextKey]
        box.items.append(.object(nested))
        return KeyedEncodingContainer(
            KeyedValueEncodingContainer<NestedKey>(encoder: encoder, box: nested, codingPath: path))
    }

    mutating func nestedUnkeyedContainer() -> any UnkeyedEncodingContainer {
        let nested = ArrayBox()
        let path = codingPath + [nextKey]
        box.items.append(.array(nested))
        return UnkeyedValueEncodingContainer(encoder: encoder, box: nested, codingPath: path)
    }

    mutating func superEncoder() -> any Encoder {
        let child = encoder.child(at: nextKey)
        box.items.append(.encoder(child))
        return child
    }
}
