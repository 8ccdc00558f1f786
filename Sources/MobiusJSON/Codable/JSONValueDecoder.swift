/// Decodes `Decodable` values from ``JSONValue`` trees, with Foundation `JSONDecoder`'s
/// layout rules and errors (`DecodingError` with the coding path).
///
/// Integers must be exact and in range for the target type (`2.0` decodes as `Int` 2,
/// `300` does not fit `Int8`); floating-point targets take the nearest value and reject
/// numbers beyond their range.
public struct JSONValueDecoder: Sendable {
    /// Values handed to every `Decoder.userInfo`.
    public var userInfo: [CodingUserInfoKey: any Sendable] = [:]
    /// How enums with synthesized `Codable` are read: Swift's own shape (the default, as Foundation reads them) or
    /// the `type`-tagged one.
    public var enumShape = JSONEnumShape.swiftKeyed

    /// Creates a decoder.
    public init(enumShape: JSONEnumShape = .swiftKeyed) {
        self.enumShape = enumShape
    }

    /// Decodes a `T` from `value`.
    ///
    /// - Throws: `DecodingError` naming the coding path of the first mismatch.
    public func decode<T: Decodable>(_ type: T.Type, from value: JSONValue) throws -> T {
        try ValueDecoder(value: value, codingPath: [], userInfo: userInfo, enumShape: enumShape).decodeValue(T.self)
    }
}
