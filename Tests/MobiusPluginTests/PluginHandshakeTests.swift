import MobiusJSON
import MobiusSystem
import Testing

@Suite("MobiusPlugin: start, handshake and shutdown", .serialized, .timeLimit(.scaled(minutes: 1)))
struct PluginHandshakeTests {
    @Test func refusesToRunWithoutMobiusdPlugin() throws {
        let plugin = try PluginDriver(pluginEnvironment: false)
        #expect(try plugin.read() == .none)
        #expect(try plugin.waitForExit() == .exited(2))
        #expect(plugin.stderrLines.first?.hasPrefix("fixture is a mobiusd plugin") == true)
    }

    @Test func initializeAnnouncesEffectsUpdateAndBatchThenSourcesStart() throws {
        let plugin = try PluginDriver()
        let result = try plugin.initialize()
        #expect(result["protocol"] == 1)
        #expect(result["name"] == "fixture")
        #expect(result["version"] == "1.2.3")
        #expect(result["effects"]?.arrayValue?.contains("echo") == true)
        #expect(result["update"] == true)
        #expect(result["batch"] == true)
        let started = try plugin.read()
        #expect(started?["method"] == "event")
        #expect(started?["params"] == ["event": ["type": "started", "app": "test-app", "plugin": "fx"]])
        let (reply, rest, exit) = try plugin.shutdown()
        #expect(reply["result"] == [:])
        #expect(rest.isEmpty)
        #expect(exit == .exited(0))
    }

    @Test func onInitializeCanRefuseTheStart() throws {
        let plugin = try PluginDriver()
        let reply = try plugin.call("initialize", ["protocol": 1, "options": ["refuse": true]])
        #expect(reply["error"]?["message"] == "refused: options say so")
        #expect(try plugin.waitForExit() == .exited(1))
        #expect(plugin.stderrLines.contains("<3>start refused: refused: options say so"))
    }

    @Test func requestsBeforeInitializeAndASecondInitializeAreErrors() throws {
        let plugin = try PluginDriver()
        #expect(try plugin.call("effect", ["effect": "echo"])["error"]?["code"] == -32002)
        #expect(try plugin.call("update", ["model": 1, "event": 2])["error"]?["code"] == -32002)
        #expect(try plugin.call("ping")["result"] == [:])
        try plugin.initialize()
        _ = try plugin.read()  // the source's started event
        #expect(try plugin.call("initialize", ["protocol": 1])["error"]?["code"] == -32600)
        #expect(try plugin.call("initialize", ["protocol": 1])["error"]?["code"] == -32600)
    }

    @Test func badInitializeParamsAreRefusedAndTheHandshakeCanBeRetried() throws {
        let plugin = try PluginDriver()
        #expect(try plugin.call("initialize", ["options": [1]])["error"]?["code"] == -32602)
        #expect(try plugin.call("initialize", "x")["error"]?["code"] == -32602)
        #expect(try plugin.initialize(options: ["k": 1])["name"] == "fixture")
    }

    @Test func optionsReachHandlers() throws {
        let plugin = try PluginDriver()
        try plugin.initialize(options: ["dir": "/tmp", "n": [1, 2]])
        _ = try plugin.read()  // started
        #expect(
            try plugin.call("effect", ["effect": "options"])["result"] == ["events": [["dir": "/tmp", "n": [1, 2]]]])
    }

    @Test func endOfInputWithoutShutdownExitsZero() throws {
        let plugin = try PluginDriver()
        try plugin.initialize()
        _ = try plugin.effect("slow")
        plugin.closeInput()
        var seen: [JSONValue] = []
        while let message = try plugin.read() { seen.append(message) }
        #expect(try plugin.waitForExit() == .exited(0))
        #expect(!seen.contains { $0["result"] != .none || $0["error"] != .none })
    }
}
