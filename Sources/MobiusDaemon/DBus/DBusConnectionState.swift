/// Where a bus connection is (`status`: `dbus.<source>.state`).
enum DBusConnectionState: String, Sendable {
    /// Connecting, adding matches, or running the initial reads.
    case connecting
    /// Matches are in; signals flow.
    case connected
    /// The last attempt failed or the bus went away; the next attempt waits for the backoff delay.
    case backoff
}
