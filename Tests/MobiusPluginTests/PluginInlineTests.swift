import MobiusJSON
import MobiusSystem
import Testing

@Suite("MobiusPlugin: inline handlers and batched answers", .serialized, .timeLimit(.scaled(minutes: 1)))
struct PluginInlineTests {
    func started() throws -> PluginDriver {
        let plugin = try PluginDriver()
        try plugin.initialize()
        #expect(try plugin.read()?["params"]?["event"]?["type"] == "started")
        return plugin
    }

    static func request(_ id: Int, _ effect: JSONValue) -> [UInt8] {
        let message: JSONValue = [
            "jsonrpc": "2.0", "id": .number(JSONNumber(id)), "method": "effect", "params": ["effect": effect],
        ]
        return message.encoded() + [UInt8(ascii: "\n")]
    }

    @Test func anInlineHandlerAnswersLikeATaskHandler() throws {
        let plugin = try started()
        let effect: JSONValue = ["type": "inlineEcho", "x": 1]
        #expect(
            try plugin.call("effect", ["effect": effect])["result"] == [
                "events": [["type": "echoed", "effect": effect]]
            ])
        let id = try plugin.effect("inlineTied")
        let (before, reply) = try plugin.reply(to: id)
        #expect(before == [["jsonrpc": "2.0", "method": "event", "params": ["id": id, "event": ["type": "tick"]]]])
        #expect(reply["result"] == ["events": [["type": "done"]]])
        #expect(
            try plugin.call("effect", ["effect": "inlineFail"])["error"] == [
                "code": -32002, "message": "inline failure",
            ])
    }

    /// A burst written at once is answered in full and in order (inline handlers run one at a time as read), although
    /// the answers wait for the end of what was read or every 32 lines.
    @Test func aBurstIsAnsweredInFullAndInOrder() throws {
        let plugin = try started()
        let count = 1000
        var burst: [UInt8] = []
        for id in 1...count { burst += Self.request(id, ["type": "inlineEcho", "n": .number(JSONNumber(id))]) }
        try plugin.sendRaw(burst)
        for id in 1...count {
            let reply = try #require(try plugin.read())
            #expect(reply["id"] == .number(JSONNumber(id)))
            #expect(reply["result"]?["events"]?[0]?["effect"]?["n"] == .number(JSONNumber(id)))
        }
    }

    /// The answer to a complete line goes out before the plugin blocks for the rest of a partial one.
    @Test func anAnswerIsNotHeldForAPartialLine() throws {
        let plugin = try started()
        let next = Self.request(2, "inlineEcho")
        try plugin.sendRaw(Self.request(1, "inlineEcho") + next.prefix(10))
        #expect(try plugin.read()?["id"] == 1)
        try plugin.sendRaw(Array(next.dropFirst(10)))
        #expect(try plugin.read()?["id"] == 2)
    }

    /// An inline effect may not reuse the id of a task effect in flight; cancelling an inline effect's id (it has
    /// already ended) is harmless.
    @Test func inlineAndTaskHandlersShareTheIDRules() throws {
        let plugin = try started()
        try plugin.send(["jsonrpc": "2.0", "id": "same", "method": "effect", "params": ["effect": "slow"]])
        #expect(try plugin.read()?["method"] == "progress")
        #expect(
            try plugin.call("effect", ["effect": "inlineEcho"]).isNull == false)
        try plugin.send(["jsonrpc": "2.0", "id": "same", "method": "effect", "params": ["effect": "inlineEcho"]])
        let refused = try #require(try plugin.read())
        #expect(refused["id"] == "same")
        #expect(refused["error"]?["message"] == "an effect with id \"same\" is already in flight")
        try plugin.notify("cancel", ["id": "same"])
        try plugin.notify("cancel", ["id": 12345])
        #expect(try plugin.call("ping")["result"] == [:])
    }
}
