/// What a connection gets for one request line.
enum LoopReply: Sendable {
    /// `{"ok":true,"seq":N}`, formatted straight into the output buffer.
    case ack(UInt64)
    /// A whole reply line (with its newline).
    case line([UInt8])
    /// The request gets no reply (an ack in `errors`/`off` mode, an error in `off` mode).
    case none
}
