import MobiusJSON

/// Thrown by an app's update to reject an event: the sender gets `InvalidEvent` with `message`, the model is
/// unchanged, and the event gets no seq.
public struct EventRejection: Error, CustomStringConvertible, Sendable {
    /// What the sender is told, e.g. `the counter is at its maximum`.
    public let message: String
    /// The error code the sender gets: `InvalidEvent`, or `PluginCrashed` when the update plugin died on the event.
    let code: ErrorCode

    /// A rejection with the message the sender sees.
    public init(_ message: String) {
        self.message = message
        self.code = .invalidEvent
    }

    init(_ message: String, code: ErrorCode) {
        self.message = message
        self.code = code
    }

    /// The message, unchanged.
    public var description: String { message }

    /// The message for any error an update threw, capped so a reply stays small whatever the app put in it.
    static func message(for error: any Error) -> String {
        // A decoding error names the field and the JSON expected, not the Swift types behind them.
        let text =
            (error as? EventRejection)?.message ?? (error as? DecodingError).map(JSONDecodingMessage.message)
            ?? "\(error)"
        return text.utf8.count <= maxMessageBytes
            ? text : String(decoding: text.utf8.prefix(maxMessageBytes), as: UTF8.self) + "…"
    }

    /// The longest message sent back for a rejected event.
    static let maxMessageBytes = 512
}
