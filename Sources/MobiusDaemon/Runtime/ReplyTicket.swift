/// Identifies a client connection for the life of the daemon (never reused).
typealias ConnectionID = UInt64

/// Which event replies a connection wants (`reply on|errors|off`).
enum ReplyMode: Sendable {
    /// Acks and errors.
    case on
    /// Errors only.
    case errors
    /// Neither.
    case off
}

/// The reply a client is owed for one request line.
struct ReplyTicket: Sendable {
    let connection: ConnectionID
    /// 1-based line number on the connection, for error replies.
    let line: Int
    let mode: ReplyMode
}
