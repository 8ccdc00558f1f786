import Glibc
import MobiusJSON
import MobiusPlugin

// The plugin of the daemon's plugin benchmark (`mobiusd-bench-plugin`), built on MobiusPlugin:
// - effect "work" answers with the event {"type":"done"}, inline (the cheapest way an SDK effect runs);
// - as the update, {"type":"add"} and {"type":"done"} add 1 to the model, and {"type":"go"} asks for the effect
//   "work" (the chain event -> update plugin -> effect plugin -> event); a trivial update: the benchmark measures the
//   host and the pipes, not the work.
// With BENCH_UPDATE_ONLY in its environment it claims no effect (the chain's update, beside a worker).
var plugin = Plugin(name: "bench", version: "1")
if getenv("BENCH_UPDATE_ONLY") == nil {
    plugin.handleInline("work") { _ in [["type": "done"]] }
}
plugin.update { model, event in
    switch event["type"]?.stringValue {
    case "add", "done": .next(.number(JSONNumber((model.int64Value ?? 0) + 1)))
    case "go": .dispatch([["type": "work"]])
    default: .noChange
    }
}
plugin.run()
