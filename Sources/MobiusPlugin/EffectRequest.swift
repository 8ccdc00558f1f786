import MobiusJSON

/// One effect the host asked this plugin to run, as a handler sees it.
public struct EffectRequest: Sendable {
    /// The JSON-RPC id of the `effect` request.
    public let id: JSONValue
    /// The effect itself.
    public let effect: JSONValue
    /// The effect's routing key (the key the handler was registered for).
    public let key: String
    /// What the host said in `initialize`, including the plugin's `options`.
    public let configuration: PluginConfiguration
    let session: PluginSession
    let state: EffectState

    /// Sends an event tied to this effect now, before the effect ends. Dropped once the effect has ended or the
    /// host cancelled it.
    public func send(_ event: JSONValue) {
        session.sendTied(event, id: id, state: state)
    }

    /// Tells the host the effect is still making progress, which restarts its idle timeout.
    public func progress() {
        session.sendProgress(id: id, state: state)
    }

    /// Whether the host cancelled the effect (the handler's task is cancelled too, so `Task.isCancelled` and
    /// `Task.checkCancellation()` say the same).
    public var isCancelled: Bool { state.isCancelled }

    /// Sends events with no effect id, for sources a handler starts.
    public var events: EventSink { EventSink(session: session) }
}
