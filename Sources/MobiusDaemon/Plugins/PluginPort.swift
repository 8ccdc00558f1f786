import MobiusJSON

/// What the plugin host needs from the loop, given at init (`DaemonLoop.pluginPort`): the loop's room for plugin
/// events (backpressure on their stdout), a way to be told when there is room again, a way in for their events, and
/// where plugin state changes are traced. Made where the app's types are known, so the host is not generic.
struct PluginPort {
    /// Whether the loop's queue takes plugin events now.
    let hasRoom: () -> Bool
    /// Calls the closure once the loop has room again.
    let whenRoom: (@escaping () -> Void) -> Void
    /// Hands an event from a plugin to the loop (decoded with the app's codec; a rejection is counted and logged).
    let deliver: (JSONValue, PluginRunner) -> Void
    /// Told each time a plugin's state changes (monitors trace it).
    let stateChanged: (PluginRunner) -> Void
}
