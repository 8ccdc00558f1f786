extension JSONValue: Codable {
    /// Writes the value through any encoder: objects as keyed containers (member order
    /// kept where the encoder keeps it), arrays as unkeyed ones. With ``JSONValueEncoder``
    /// the value is stored as is; other encoders get kept-text numbers as `Double`.
    public func encode(to encoder: any Encoder) throws {
        if let valueEncoder = encoder as? ValueEncoder {
            valueEncoder.storage = .value(self)
            return
        }
        switch self {
        case .null:
            var container = encoder.singleValueContainer()
            try container.encodeNil()
        case .bool(let value):
            var container = encoder.singleValueContainer()
            try container.encode(value)
        case .number(let number):
            var container = encoder.singleValueContainer()
            switch number.storage {
            case .int(let value): try container.encode(value)
            case .uint(let value): try container.encode(value)
            case .double, .text: try container.encode(number.doubleValue)
            }
        case .string(let value):
            var container = encoder.singleValueContainer()
            try container.encode(value)
        case .array(let elements):
            var container = encoder.unkeyedContainer()
            for element in elements { try container.encode(element) }
        case .object(let object):
            var container = encoder.container(keyedBy: JSONCodingKey.self)
            for member in object { try container.encode(member.value, forKey: JSONCodingKey(stringValue: member.key)) }
        }
    }

    /// Reads any JSON-shaped value from a decoder; with ``JSONValueDecoder`` it is taken as is.
    ///
    /// - Throws: `DecodingError.dataCorrupted` when the decoder offers no JSON-compatible value.
    public init(from decoder: any Decoder) throws {
        if let valueDecoder = decoder as? ValueDecoder {
            self = valueDecoder.value
            return
        }
        if let container = try? decoder.container(keyedBy: JSONCodingKey.self) {
            var object = JSONObject()
            for key in container.allKeys { object[key.stringValue] = try container.decode(JSONValue.self, forKey: key) }
            self = .object(object)
            return
        }
        if var container = try? decoder.unkeyedContainer() {
            var elements: [JSONValue] = []
            while !container.isAtEnd { elements.append(try container.decode(JSONValue.self)) }
            self = .array(elements)
            return
        }
        let container = try decoder.singleValueContainer()
        if container.decodeNil() {
            self = .null
        } else if let value = try? container.decode(Bool.self) {
            self = .bool(value)
        } else if let value = try? container.decode(Int64.self) {
            self = .number(JSONNumber(value))
        } else if let value = try? container.decode(UInt64.self) {
            self = .number(JSONNumber(value))
        } else if let value = try? container.decode(Double.self), let number = JSONNumber(value) {
            self = .number(number)
        } else if let value = try? container.decode(String.self) {
            self = .string(value)
        } else {
            throw DecodingError.dataCorrupted(
                .init(codingPath: decoder.codingPath, debugDescription: "The value is not representable as JSON."))
        }
    }
}
