/// An error a handler or update function throws to fail its request with a chosen message and code.
///
/// Any other thrown error fails the request too, with code ``defaultCode`` and the error's description as the
/// message. For an update function, failing rejects the event: the daemon does not apply it and its sender gets
/// `InvalidEvent` with this message.
public struct PluginError: Error, CustomStringConvertible, Sendable, Hashable {
    /// The JSON-RPC error code for failures of the plugin's own work (docs/protocol.md 2.3).
    public static let defaultCode = -32000

    /// The JSON-RPC error code sent to the host.
    public let code: Int
    /// The message sent to the host; the daemon logs it.
    public let message: String

    /// Makes an error with `message` and `code`.
    public init(_ message: String, code: Int = PluginError.defaultCode) {
        self.code = code
        self.message = message
    }

    /// The message.
    public var description: String { message }
}
