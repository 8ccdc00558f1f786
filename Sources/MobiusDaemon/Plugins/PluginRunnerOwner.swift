import MobiusJSON

/// What a `PluginRunner` needs from the host: somewhere to send events and failures, the routing table, and the
/// loop's room (backpressure).
protocol PluginRunnerOwner: AnyObject {
    /// An event from the plugin (tied to an effect, from `result.events`, or unsolicited).
    func plugin(_ runner: PluginRunner, sent event: JSONValue)
    /// An effect sent to the plugin failed.
    func plugin(_ runner: PluginRunner, failed effect: JSONValue, code: PluginFailure, message: String)
    /// The plugin announced `keys` in `initialize`; returns why they cannot be routed to it (a conflict), or `nil`.
    func plugin(_ runner: PluginRunner, announces keys: [String]) -> String?
    /// The plugin's state changed (started, settled its first attempt, failed, stopped).
    func pluginStateChanged(_ runner: PluginRunner)
    /// Whether the loop takes events from `runner` now.
    func mayDeliverEvents(from runner: PluginRunner) -> Bool
    /// The plugin's host-side queue is full (`true`): the daemon's edges wait until it has drained (`false`).
    func plugin(_ runner: PluginRunner, pushesBack: Bool)
    /// Calls `resume` once the loop has room again.
    func notifyWhenRoom(_ resume: @escaping () -> Void)
}
