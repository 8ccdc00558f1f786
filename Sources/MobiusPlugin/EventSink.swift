import MobiusJSON

/// Sends events of the plugin's own to the daemon (docs/protocol.md 2.3: the plugin as an event source).
///
/// Events emitted before the host's `initialized` wait (up to ``PluginSession/maxEarlyEvents``; later ones are
/// dropped and logged) and go out when it arrives. `emit` may block while the host is not reading: that is the
/// backpressure a flooding source should feel. Safe from any thread or task.
public struct EventSink: Sendable {
    let session: PluginSession

    /// Sends `event` with no effect id. An event whose line would exceed the host's limit is dropped and logged.
    public func emit(_ event: JSONValue) {
        session.emitUnsolicited(event)
    }
}
