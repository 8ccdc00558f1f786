import MobiusCore
import MobiusDaemon
import MobiusJSON

// The app of the plugin benchmark (`mobiusd-bench-relay`): each {"type":"go"} emits the effect {"type":"work"},
// which the benchmark's plugin answers with the event {"type":"done"}, which counts. The model is the number of
// round trips completed: event -> effect -> plugin -> event -> model.
let app = DaemonApp.json(name: "relay", model: 0) { model, event in
    switch event["type"]?.stringValue {
    case "go": return .dispatchEffects([["type": "work"]])
    case "done": return .next(.number(JSONNumber((model.int64Value ?? 0) + 1)))
    default: throw EventRejection("the relay takes {\"type\":\"go\"} and {\"type\":\"done\"}")
    }
}
MobiusDaemon.main(app: app)
