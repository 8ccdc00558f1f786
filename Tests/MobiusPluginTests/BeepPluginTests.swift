import MobiusJSON
import MobiusSystem
import MobiusTestSupport
import Testing

/// mobiusd-beep over real pipes. PATH points nowhere, so no desktop player can answer and the outcome does not
/// depend on what this machine has installed; the configured command and the bell file are the test's own.
@Suite("mobiusd-beep", .serialized, .timeLimit(.scaled(minutes: 1)))
final class BeepPluginTests {
    let scratch: TemporaryDirectory
    let bell: String

    init() throws {
        scratch = try TemporaryDirectory(prefix: "mobiusd-beep-test")
        bell = try scratch.write("", to: "bell")
    }

    deinit { scratch.remove() }

    func beep(_ options: JSONObject) throws -> (PluginDriver, JSONValue) {
        let plugin = try PluginDriver([PluginDriver.builtProgram("mobiusd-beep")], extra: ["PATH": "/nonexistent"])
        let result = try plugin.initialize(options: options)
        #expect(result["effects"] == ["beep"])
        #expect(result["update"] == false)
        return (plugin, try plugin.call("effect", ["effect": ["type": "beep"]]))
    }

    @Test func theConfiguredCommandRingsFirst() throws {
        let marker = scratch.file("rang")
        let (_, reply) = try beep([
            "command": ["/bin/sh", "-c", .string("echo rang > \(marker)")], "bell": .string(bell),
            "event": ["type": "beeped"],
        ])
        #expect(reply["result"] == ["events": [["type": "beeped", "via": "command"]]])
        #expect(try FileSystem.read(marker) == Array("rang\n".utf8))
        #expect(try FileSystem.read(bell).isEmpty)
    }

    @Test func withoutAWorkingPlayerItRingsTheBell() throws {
        let (_, reply) = try beep(["command": ["/bin/false"], "bell": .string(bell), "event": ["type": "beeped"]])
        #expect(reply["result"] == ["events": [["type": "beeped", "via": "bell"]]])
        #expect(try FileSystem.read(bell) == [0x07])
    }

    @Test func withNothingToRingTheEffectStillSucceedsAndIsLogged() throws {
        let (plugin, reply) = try beep(["bell": .string(scratch.file("missing"))])
        #expect(reply["result"] == [:])
        _ = try plugin.shutdown()
        #expect(plugin.stderrLines.contains { $0.hasPrefix("<5>beep: no sound player worked") })
        #expect(!FileSystem.exists(scratch.file("missing")))
    }

    @Test(
        arguments: [
            (["command": []], "options.command"), (["command": "aplay"], "options.command"),
            (["bell": "relative"], "options.bell"), (["event": "x"], "options.event"),
            (["volume": 3], "unknown option"),
        ] as [(JSONObject, String)])
    func badOptionsRefuseTheStart(options: JSONObject, words: String) throws {
        let plugin = try PluginDriver([PluginDriver.builtProgram("mobiusd-beep")])
        let reply = try plugin.call("initialize", ["protocol": 1, "options": .object(options)])
        #expect(reply["error"]?["message"]?.stringValue?.contains(words) == true)
        #expect(try plugin.waitForExit() == .exited(1))
    }
}
