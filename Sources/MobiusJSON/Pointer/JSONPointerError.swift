/// A JSON Pointer string that RFC 6901 does not allow.
public struct JSONPointerError: Error, CustomStringConvertible, Sendable, Hashable {
    /// The rejected pointer text.
    public let pointer: String
    /// Byte offset of the problem in `pointer`.
    public let offset: Int
    /// Human text without the position.
    public let message: String

    /// Creates an error.
    public init(pointer: String, offset: Int, message: String) {
        self.pointer = pointer
        self.offset = offset
        self.message = message
    }

    /// E.g. `invalid JSON Pointer "/a~2": '~' must be followed by '0' or '1' at byte 2`.
    public var description: String {
        "invalid JSON Pointer \"\(pointer)\": \(message) at byte \(offset)"
    }
}
