/// Writes object members into an ``ObjectBox``.
struct KeyedValueEncodingContainer<Key: CodingKey>: KeyedEncodingContainerProtocol {
    let encoder: ValueEncoder
    let box: ObjectBox
    let codingPath: [any CodingKey]

    mutating func encodeNil(forKey key: Key) throws {
        box.set(key.stringValue, .value(.null))
    }

    mutating func encode(_ value: Bool, forKey key: Key) throws {
        box.set(key.stringValue, .value(.bool(value)))
    }

    mutating func encode(_ value: String, forKey key: Key) throws {
        box.set(key.stringValue, .value(.string(value)))
    }

    mutating func encode(_ value: Double, forKey key: Key) throws {
        box.set(key.stringValue, .value(try ValueEncoder.box(value, path: codingPath + [key])))
    }

    mutating func encode(_ value: Float, forKey key: Key) throws {
        box.set(key.stringValue, .value(try ValueEncoder.box(value, path: codingPath + [key])))
    }

    mutating func encode(_ value: Int, forKey key: Key) throws {
        box.set(key.stringValue, .value(ValueEncoder.box(value)))
    }

    mutating func encode(_ value: Int8, forKey key: Key) throws {
        box.set(key.stringValue, .value(ValueEncoder.box(value)))
    }

    mutating func encode(_ value: Int16, forKey key: Key) throws {
        box.set(key.stringValue, .value(ValueEncoder.box(value)))
    }

    mutating func encode(_ value: Int32, forKey key: Key) throws {
        box.set(key.stringValue, .value(ValueEncoder.box(value)))
    }

    mutating func encode(_ value: Int64, forKey key: Key) throws {
        box.set(key.stringValue, .value(ValueEncoder.box(value)))
    }

    mutating func encode(_ value: UInt, forKey key: Key) throws {
        box.set(key.stringValue, .value(ValueEncoder.box(value)))
    }

    mutating func encode(_ value: UInt8, forKey key: Key) throws {
        box.set(key.stringValue, .value(ValueEncoder.box(value)))
    }

    mutating func encode(_ value: UInt16, forKey key: Key) throws {
        box.set(key.stringValue, .value(ValueEncoder.box(value)))
    }

    mutating func encode(_ value: UInt32, forKey key: Key) throws {
        box.set(key.stringValue, .value(ValueEncoder.box(value)))
    }

    mutating func encode(_ value: UInt64, forKey key: Key) throws {
        box.set(key.stringValue, .value(ValueEncoder.box(value)))
    }

    mutating func encode<T: Encodable>(_ value: T, forKey key: Key) throws {
        box.set(key.stringValue, try encoder.encodeChild(value, at: key))
    }

    mutating func nestedContainer<NestedKey: CodingKey>(
        keyedBy keyType: NestedKey.Type, forKey key: Key
    ) -> KeyedEncodingContainer<NestedKey> {
        if encoder.enumShape == .typeTagged, SynthesizedEnum.isPayloadKeys(NestedKey.self, in: Key.self) {
            box.enumCase = key.stringValue
        }
        let nested: ObjectBox
        if case .object(let existing) = box.item(for: key.stringValue) {
            nested = existing
        } else {
            nested = ObjectBox()
            box.set(key.stringValue, .object(nested))
        }
        return KeyedEncodingContainer(
            KeyedValueEncodingContainer<NestedKey>(encoder: encoder, box: nested, codingPath: codingPath + [key]))
    }

    mutating func nestedUnkeyedContainer(forKey key: Key) -> any UnkeyedEncodingContainer {
        let nested: ArrayBox
        if case .array(let existing) = box.item(for: key.stringValue) {
            nested = existing
        } else {
            nested = ArrayBox()
            box.set(key.stringValue, .array(nested))
        }
        return UnkeyedValueEncodingContainer(encoder: encoder, box: nested, codingPath: codingPath + [key])
    }

    mutating func superEncoder() -> any Encoder {
        let child = encoder.child(at: JSONCodingKey.superKey)
        box.set(JSONCodingKey.superKey.stringValue, .encoder(child))
        return child
    }

    mutating func superEncoder(forKey key: Key) -> any Encoder {
        let child = encoder.child(at: key)
        box.set(key.stringValue, .encoder(child))
        return child
    }
}
