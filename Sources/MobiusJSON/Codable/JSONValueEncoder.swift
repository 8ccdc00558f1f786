/// Encodes `Encodable` values into ``JSONValue`` trees, the way Foundation's `JSONEncoder`
/// lays them out (keyed containers become objects, unkeyed ones arrays), without text.
///
/// Integers are exact, `Double` keeps its shortest round-trip text, `Float` its own
/// shortest text (`1.1` stays `1.1`). NaN and infinity cannot be encoded.
public struct JSONValueEncoder: Sendable {
    /// Values handed to every `Encoder.userInfo`.
    public var userInfo: [CodingUserInfoKey: any Sendable] = [:]
    /// How deep values may nest (the parser's limit by default); deeper values throw `EncodingError.invalidValue`
    /// instead of recursing further.
    public var maxDepth = JSONParser.defaultMaxDepth
    /// How enums with synthesized `Codable` are written: Swift's own shape (the default, as Foundation writes them)
    /// or the `type`-tagged one.
    public var enumShape = JSONEnumShape.swiftKeyed

    /// Creates an encoder.
    public init(enumShape: JSONEnumShape = .swiftKeyed) {
        self.enumShape = enumShape
    }

    /// Encodes `value`.
    ///
    /// - Throws: `EncodingError.invalidValue` for a non-finite floating-point value, a value
    ///   nested deeper than `maxDepth`, a value that encodes nothing at all, or (``JSONEnumShape/typeTagged``) an
    ///   enum case with a value labelled `type`.
    public func encode(_ value: some Encodable) throws -> JSONValue {
        let encoder = ValueEncoder(codingPath: [], userInfo: userInfo, maxDepth: maxDepth, enumShape: enumShape)
        try encoder.encodeValue(value)
        guard let storage = encoder.storage else {
            throw EncodingError.invalidValue(
                value,
                EncodingError.Context(
                    codingPath: [], debugDescription: "Top-level \(type(of: value)) did not encode any values."))
        }
        return storage.resolved()
    }
}
