import MobiusJSON

/// Why an effect sent to a plugin failed: the `error.code` of an `onError` event (docs/protocol.md 2.3).
enum PluginFailure: String, Sendable, CaseIterable {
    /// No progress within the plugin's `timeout`; the host sent `cancel`.
    case timeout = "Timeout"
    /// The plugin exited, crashed or closed its stdout with the effect in flight.
    case pluginExited = "PluginExited"
    /// The plugin answered with a JSON-RPC error.
    case pluginError = "PluginError"
    /// The plugin broke the protocol (a non-JSON-RPC line, a line over the limit, a malformed answer).
    case protocolViolation = "ProtocolViolation"
    /// The plugin is `failed`, shutting down, or its queue is full.
    case unavailable = "Unavailable"
    /// The plugin no longer claims the effect's key after a restart.
    case unroutable = "Unroutable"
}
