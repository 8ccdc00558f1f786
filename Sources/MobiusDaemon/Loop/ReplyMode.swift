/// Which event replies a connection wants (`reply on|errors|off`).
enum ReplyMode: Sendable {
    /// Acks and errors.
    case on
    /// Errors only.
    case errors
    /// Neither.
    case off
}
