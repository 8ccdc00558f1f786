import MobiusJSON
import Testing

@Suite("MobiusPlugin: init, update and updateBatch", .serialized, .timeLimit(.scaled(minutes: 1)))
struct PluginUpdateTests {
    func started() throws -> PluginDriver {
        let plugin = try PluginDriver()
        try plugin.initialize()
        _ = try plugin.read()  // the source's started event
        return plugin
    }

    @Test func initAndUpdate() throws {
        let plugin = try started()
        #expect(try plugin.call("init", ["model": nil])["result"] == ["model": 0, "effects": [["type": "echo"]]])
        #expect(try plugin.call("init", [:])["result"] == ["model": 0, "effects": [["type": "echo"]]])
        #expect(try plugin.call("init", ["model": 5])["result"] == [:])
        #expect(
            try plugin.call("update", ["model": 5, "event": ["type": "inc"]])["result"]
                == ["model": 6, "effects": [["type": "echo", "count": 6]]])
        #expect(try plugin.call("update", ["model": 5, "event": "other"])["result"] == [:])
        #expect(
            try plugin.call("update", ["model": 5, "event": ["type": "reject"]])["error"]
                == ["code": -32000, "message": "reject refused at 5"])
        #expect(try plugin.call("update", ["model": 5])["error"]?["code"] == -32602)
        #expect(try plugin.call("updateBatch", ["model": 5, "events": 3])["error"]?["code"] == -32602)
    }

    @Test func updateBatchWithARejectedEvent() throws {
        let plugin = try started()
        let reply = try plugin.call(
            "updateBatch", ["model": 1, "events": [["type": "inc"], ["type": "reject"], ["type": "inc"], "x"]])
        #expect(
            reply["result"]
                == [
                    "model": 3,
                    "results": [
                        ["effects": [["type": "echo", "count": 2]]],
                        ["error": ["code": -32000, "message": "reject refused at 2"]],
                        ["effects": [["type": "echo", "count": 3]]],
                        [:],
                    ],
                ])
        #expect(
            try plugin.call("updateBatch", ["model": 1, "events": ["x", ["type": "reject"]]])["result"]
                == ["results": [[:], ["error": ["code": -32000, "message": "reject refused at 1"]]]])
        #expect(try plugin.call("updateBatch", ["model": 1, "events": []])["result"] == ["results": []])
    }

    @Test func aBatchAnswersWhatOneAtATimeWould() throws {
        let plugin = try started()
        let events: [JSONValue] = ["inc", "reject", "x", "inc", "inc", "reject"].map { ["type": .string($0)] }
        var model: JSONValue = 0
        var singles: [JSONValue] = []
        for event in events {
            let reply = try plugin.call("update", ["model": model, "event": event])
            if let error = reply["error"] {
                singles.append(["error": error])
                continue
            }
            model = reply["result"]?["model"] ?? model
            singles.append(reply["result"]?["effects"].map { ["effects": $0] } ?? [:])
        }
        let batch = try plugin.call("updateBatch", ["model": 0, "events": .array(events)])["result"]
        #expect(batch?["model"] == model)
        #expect(batch?["results"] == .array(singles))
    }
}
