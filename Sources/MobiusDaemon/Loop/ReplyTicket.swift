/// Identifies a client connection for the life of the daemon (never reused).
typealias ConnectionID = UInt64

/// The reply a client is owed for one request line.
struct ReplyTicket: Sendable {
    let connection: ConnectionID
    /// 1-based line number on the connection, for error replies.
    let line: Int
    let mode: ReplyMode
}
