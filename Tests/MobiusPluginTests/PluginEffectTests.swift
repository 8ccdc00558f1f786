import MobiusJSON
import MobiusSystem
import Testing

@Suite("MobiusPlugin: effects, events, progress and cancel", .serialized, .timeLimit(.scaled(minutes: 1)))
struct PluginEffectTests {
    /// A fixture past its handshake, with the source's `started` event read.
    func started(_ extra: [String: String] = [:]) throws -> PluginDriver {
        let plugin = try PluginDriver(extra: extra)
        try plugin.initialize()
        #expect(try plugin.read()?["params"]?["event"]?["type"] == "started")
        return plugin
    }

    @Test(arguments: [JSONValue("echo"), ["type": "echo", "x": 1], ["echo": ["x": 2]]])
    func resultEventsForEveryKeyShape(effect: JSONValue) throws {
        let plugin = try started()
        #expect(
            try plugin.call("effect", ["effect": effect])["result"] == [
                "events": [["type": "echoed", "effect": effect]]
            ])
    }

    @Test func tiedEventsComeBeforeTheResult() throws {
        let plugin = try started()
        let id = try plugin.effect(["type": "tied", "count": 3])
        let (before, reply) = try plugin.reply(to: id)
        #expect(
            before
                == (0..<3).map { n in
                    [
                        "jsonrpc": "2.0", "method": "event",
                        "params": ["id": id, "event": ["type": "tick", "n": .number(JSONNumber(n))]],
                    ]
                })
        #expect(reply["result"] == ["events": [["type": "done"]]])
    }

    @Test func thrownErrorsFailTheEffectAndThePluginGoesOn() throws {
        let plugin = try started()
        #expect(
            try plugin.call("effect", ["effect": "fail"])["error"] == ["code": -32001, "message": "failed on purpose"])
        #expect(try plugin.call("effect", ["effect": "echo"])["result"] != .none)
    }

    @Test func unknownAndUnroutableEffectsAndBadParams() throws {
        let plugin = try started()
        #expect(try plugin.call("effect", ["effect": "nope"])["error"]?["message"] == "no handler for key \"nope\"")
        #expect(
            try plugin.call("effect", ["effect": ["a": 1, "b": 2]])["error"]?["message"]
                == "no handler for an unroutable effect")
        #expect(try plugin.call("effect", ["effect": [1]])["error"]?["code"] == -32602)
        #expect(try plugin.call("effect", [:])["error"]?["code"] == -32602)
        #expect(try plugin.call("effect")["error"]?["code"] == -32602)
        #expect(try plugin.call("frobnicate")["error"]?["code"] == -32601)
    }

    @Test func progressThenCancelDropsEverythingLaterForThatID() throws {
        let plugin = try started()
        let id = try plugin.effect("slow")
        #expect(try plugin.read() == ["jsonrpc": "2.0", "method": "progress", "params": ["id": id]])
        try plugin.notify("cancel", ["id": id])
        // Until the handler has seen the cancellation and tried to send, nothing of it may arrive.
        while true {
            let (before, reply) = try plugin.reply(to: plugin.effect("cancelled"))
            #expect(before.isEmpty)
            if reply["result"]?["events"]?[0] == 1 { break }
        }
        try plugin.notify("cancel", ["id": id])  // again, and for an unknown id: harmless
        try plugin.notify("cancel", ["id": 999])
        try plugin.notify("cancel", [:])
        #expect(try plugin.call("ping")["result"] == [:])
        let (_, rest, exit) = try plugin.shutdown()
        #expect(rest.isEmpty)
        #expect(exit == .exited(0))
    }

    @Test func aReusedIDWhileInFlightIsRefused() throws {
        let plugin = try started()
        try plugin.send(["jsonrpc": "2.0", "id": "same", "method": "effect", "params": ["effect": "slow"]])
        #expect(try plugin.read()?["method"] == "progress")
        try plugin.send(["jsonrpc": "2.0", "id": "same", "method": "effect", "params": ["effect": "echo"]])
        #expect(try plugin.read()?["error"]?["message"] == "an effect with id \"same\" is already in flight")
    }

    @Test func unsolicitedEventsFromAHandler() throws {
        let plugin = try started()
        let (before, reply) = try plugin.reply(to: plugin.effect(["type": "emit", "count": 500]))
        #expect(reply["result"] == [:])
        #expect(
            before.map { $0["params"] }
                == (0..<500).map { n in ["event": ["type": "unsolicited", "n": .number(JSONNumber(n))]] })
    }

    @Test func concurrentEffectsEachGetOneReply() throws {
        let plugin = try started()
        var ids: [JSONValue: Int] = [:]
        for n in 0..<200 { ids[try plugin.effect(["type": "echo", "n": .number(JSONNumber(n))])] = n }
        var replies: [JSONValue: Int] = [:]
        while replies.count < ids.count {
            let message = try #require(try plugin.read())
            let id = try #require(message["id"])
            #expect(replies[id] == nil)
            replies[id] = message["result"]?["events"]?[0]?["effect"]?["n"]?.int64Value.map { Int($0) }
        }
        #expect(replies == ids)
    }

    @Test func aStrayPrintGoesToStderrNotTheProtocol() throws {
        let plugin = try started()
        #expect(try plugin.call("effect", ["effect": "print"])["result"] == ["events": [["type": "printed"]]])
        _ = try plugin.shutdown()
        #expect(plugin.stderrLines.contains("a stray line on stdout"))
    }

    @Test func logLinesCarryPrioritiesAndAreCut() throws {
        let plugin = try started()
        _ = try plugin.call("effect", ["effect": ["type": "log", "priority": 3, "message": "first\nsecond"]])
        _ = try plugin.call(
            "effect",
            ["effect": ["type": "log", "priority": 7, "message": .string(String(repeating: "é", count: 5000))]])
        _ = try plugin.shutdown()
        let lines = plugin.stderrLines
        #expect(lines.contains("<3>first"))
        #expect(lines.contains("<3>second"))
        let long = try #require(lines.first { $0.hasPrefix("<7>é") })
        #expect(long.hasSuffix("[5904 more bytes cut]"))
        #expect(long.utf8.count < 4200)
    }
}
