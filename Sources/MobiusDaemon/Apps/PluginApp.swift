import MobiusCore
import MobiusJSON

/// A JSON app whose update is a plugin (`{"update":{"plugin":NAME}}`, docs/protocol.md 2.5): the loop asks the plugin
/// for each pass's outcomes before computing it, so the update closure here is never called.
enum PluginApp {
    /// The app named `name` (default: the plugin's name), starting from `model` (default `null`).
    static func make(plugin: String, name: String?, model: JSONValue?) -> DaemonApp<JSONValue, JSONValue, JSONValue> {
        var app = DaemonApp.json(name: name ?? plugin, model: model ?? .null) { _, _ in
            throw EventRejection("internal: the update plugin was not asked for this event")
        }
        app.updatePlugin = plugin
        // The model comes back from the plugin as one parsed JSON line, which the parser already bounds to 512
        // levels.
        app.modelDepth = .boundedByApp
        return app
    }
}
