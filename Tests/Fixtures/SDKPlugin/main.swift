// A plugin built on MobiusPlugin for the SDK's tests: one handler per feature under test.
import MobiusJSON
import MobiusPlugin
import MobiusSystem
import Synchronization

let cancelledHandlers = Atomic<Int>(0)

var plugin = Plugin(name: "fixture", version: "1.2.3")
if let limit = SystemProcess.environment("FIXTURE_MAX_LINE").flatMap({ Int($0) }) {
    plugin.maxLineBytes = limit
}

plugin.onInitialize { configuration in
    if configuration.options["refuse"] == true { throw PluginError("refused: options say so") }
}

plugin.onStart { events, configuration in
    events.emit(["type": "started", "app": .string(configuration.app), "plugin": .string(configuration.plugin)])
}

plugin.handle("echo") { request in
    [["type": "echoed", "effect": request.effect]]
}

plugin.handle("tied") { request in
    let count = request.effect["count"]?.int64Value ?? 1
    for index in 0..<count { request.send(["type": "tick", "n": .number(JSONNumber(index))]) }
    return [["type": "done"]]
}

plugin.handleInline("inlineEcho") { request in
    [["type": "echoed", "effect": request.effect]]
}

plugin.handleInline("inlineTied") { request in
    request.send(["type": "tick"])
    return [["type": "done"]]
}

plugin.handleInline("inlineFail") { _ in
    throw PluginError("inline failure", code: -32002)
}

plugin.handle("fail") { _ in
    throw PluginError("failed on purpose", code: -32001)
}

plugin.handle("slow") { request in
    request.progress()
    while !Task.isCancelled {
        try? await Task.sleep(for: .seconds(60))
    }
    // Cancelled: whatever it sends now must not reach the host.
    request.send(["type": "tooLate"])
    cancelledHandlers.add(1, ordering: .sequentiallyConsistent)
    return [["type": "tooLateResult"]]
}

plugin.handle("cancelled") { _ in
    [.number(JSONNumber(cancelledHandlers.load(ordering: .sequentiallyConsistent)))]
}

plugin.handle("emit") { request in
    let count = request.effect["count"]?.int64Value ?? 1
    for index in 0..<count { request.events.emit(["type": "unsolicited", "n": .number(JSONNumber(index))]) }
    return []
}

plugin.handle("print") { _ in
    print("a stray line on stdout")
    return [["type": "printed"]]
}

plugin.handle("big") { request in
    let size = Int(request.effect["size"]?.int64Value ?? 0)
    return [.string(String(repeating: "x", count: max(0, size)))]
}

plugin.handle("log") { request in
    let priority = PluginLog.Priority(rawValue: Int(request.effect["priority"]?.int64Value ?? 6)) ?? .info
    PluginLog.log(priority, request.effect["message"]?.stringValue ?? "")
    return []
}

plugin.handle("options") { request in
    [.object(request.configuration.options)]
}

// A counter as the app's update: {"type":"inc"} adds one, {"type":"reject"} is refused, anything else is ignored.
plugin.update(init: { model in
    model.isNull ? .next(0, effects: [["type": "echo"]]) : .noChange
}) { model, event in
    let count = model.int64Value ?? 0
    switch event["type"]?.stringValue {
    case "inc":
        return .next(
            .number(JSONNumber(count + 1)), effects: [["type": "echo", "count": .number(JSONNumber(count + 1))]])
    case "reject": throw PluginError("reject refused at \(count)")
    default: return .noChange
    }
}

plugin.run()
