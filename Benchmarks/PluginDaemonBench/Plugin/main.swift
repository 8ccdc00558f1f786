import MobiusJSON
import MobiusPlugin

// The plugin of the daemon's plugin benchmark (`mobiusd-bench-plugin`), built on MobiusPlugin:
// - effect "work" answers with the event {"type":"done"}, inline (the cheapest way an SDK effect runs);
// - as the update, {"type":"add"} adds 1 to the model (a trivial update: the benchmark measures the host and the
//   pipe, not the work).
var plugin = Plugin(name: "bench", version: "1")
plugin.handleInline("work") { _ in [["type": "done"]] }
plugin.update { model, event in
    event["type"]?.stringValue == "add" ? .next(.number(JSONNumber((model.int64Value ?? 0) + 1))) : .noChange
}
plugin.run()
