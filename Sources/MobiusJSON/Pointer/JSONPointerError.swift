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

    /// E.g. `invalid JSON Pointer "/a~2": '~' must be followed by '0' or '1' at byte 2`. A long pointer is shown
    /// by its first 64 bytes, so a reply about it stays small.
    public var description: String {
        let shown = pointer.utf8.count <= 64 ? pointer : String(decoding: pointer.utf8.prefix(64), as: UTF8.self) + "…"
        return "invalid JSON Pointer \"\(shown)\": \(message) at byte \(offset)"
    }
}
