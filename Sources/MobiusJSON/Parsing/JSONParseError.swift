/// Why JSON text was rejected, and where.
///
/// `description` reads like `unexpected character 'x' at byte 12`; ``offset`` counts bytes
/// from the start of the buffer that was parsed, starting at 0.
public struct JSONParseError: Error, CustomStringConvertible, Sendable, Hashable {
    /// The class of problem, for callers that map errors to codes (e.g. `InvalidEncoding`).
    public enum Kind: Sendable, Hashable {
        /// A byte that cannot start or continue the value here.
        case unexpectedCharacter
        /// The input ended inside a value, or held no value at all.
        case unexpectedEnd
        /// Bytes that are not well-formed UTF-8 (inside or outside strings).
        case invalidUTF8
        /// A malformed number: leading zero, missing digits.
        case invalidNumber
        /// A backslash escape RFC 8259 does not define, or a bad `\u` escape.
        case invalidEscape
        /// A raw control character (U+0000…U+001F) inside a string.
        case controlCharacter
        /// A `\u` escape of a surrogate without its partner.
        case loneSurrogate
        /// Arrays and objects nested deeper than the parser's limit.
        case depthLimitExceeded
        /// Non-whitespace after the complete value.
        case trailingContent
        /// A key repeated in one object, when the parser rejects duplicates.
        case duplicateKey
    }

    /// The class of problem.
    public let kind: Kind
    /// Byte offset of the problem, from the start of the parsed buffer.
    public let offset: Int
    /// Human text without the position, e.g. `unexpected character 'x'`.
    public let message: String

    /// Creates an error.
    public init(kind: Kind, offset: Int, message: String) {
        self.kind = kind
        self.offset = offset
        self.message = message
    }

    /// The message with its position: `unexpected character 'x' at byte 12`.
    public var description: String {
        "\(message) at byte \(offset)"
    }
}
