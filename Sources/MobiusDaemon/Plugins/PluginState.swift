/// Where a plugin is in its life (docs/protocol.md 1.3 `status`, 2.2, 2.3).
enum PluginState: String, Sendable {
    /// Spawned; the `initialize` handshake has not finished.
    case starting
    /// Initialized: effects (and updates) go out.
    case running
    /// Ended unexpectedly; waiting to be started again.
    case backoff
    /// Past its start limit (or refused by the host): its effects fail at once.
    case failed
    /// Shut down by the daemon (or shutting down).
    case stopped
}
