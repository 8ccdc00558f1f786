// mobiusd-beep: the counter's sound. Handles the effect {"type":"beep"} (see README.md).
import MobiusJSON
import MobiusPlugin
import Synchronization

let configured = Mutex<BeepOptions?>(nil)

var plugin = Plugin(name: "beep", version: "1.0")
plugin.onInitialize { configuration in
    let options = try BeepOptions(configuration.options)
    configured.withLock { $0 = options }
}
plugin.handle("beep") { request in
    guard let options = configured.withLock({ $0 }) else { throw PluginError("not configured") }
    let via = await BeepRinger(options: options).ring()
    if via == "none" { PluginLog.notice("beep: no sound player worked and \(options.bell) cannot be written") }
    guard var event = options.event else { return [] }
    event["via"] = .string(via)
    return [.object(event)]
}
plugin.run()
