/// A coding key built at run time: object keys of ``JSONValue`` and array positions in
/// coding paths (`Index 3`, as Foundation names them).
public struct JSONCodingKey: CodingKey, Sendable, Hashable {
    /// The key text.
    public let stringValue: String
    /// The array position, for index keys.
    public let intValue: Int?

    /// Creates a key for an object member.
    public init(stringValue: String) {
        self.stringValue = stringValue
        intValue = nil
    }

    /// Creates a key for an array position.
    public init(intValue: Int) {
        stringValue = "Index \(intValue)"
        self.intValue = intValue
    }

    /// The key `super`, used by `superEncoder()` and `superDecoder()`.
    static let superKey = JSONCodingKey(stringValue: "super")
}
