import MobiusJSON
import MobiusSystem
import Testing

/// docs/protocol.md 2.5: SIGHUP restarts an update plugin whose files changed, keeping the model; nothing is
/// replayed. Editing the update plugin and reloading is the edit loop.
@Suite(.serialized, .timeLimit(.scaled(minutes: 2)))
struct UpdatePluginEditLoopTests {
    @Test func aReloadAfterAnEditRestartsTheUpdatePluginAndKeepsTheModel() throws {
        let scratch = DaemonScratch()
        let calls = scratch.file("calls")
        let wrapper = scratch.write("update.sh", "#!/bin/sh\nexec '\(PluginFixtures.behave)'\n")
        try FileSystem.setMode(wrapper, 0o755)
        let update: JSONValue = [
            "exec": [.string(wrapper)], "options": ["mode": "update", "batch": true, "calls": .string(calls)],
        ]
        let config = PluginFixtures.writeConfig(
            ["app": "editloop", "update": ["plugin": "app"], "plugins": ["app": update]], in: scratch)
        let daemon = try DaemonProcess(
            scratch: scratch, arguments: ["--config", config, "--socket", scratch.file("x.sock")],
            socketPath: scratch.file("x.sock"))
        let client = try daemon.connect()
        for n in 1...3 { #expect(try client.request(#"{"type":"add","n":\#(n)}"#).seq == Int64(n)) }
        let before = try client.request("status")["plugins"]?["app"]
        let callsBefore = scratch.read("calls").split(separator: "\n").count

        // A reload without an edit leaves the plugin alone.
        daemon.send(signal: 1)
        try DaemonTraffic.eventually("the first reload is done") { daemon.standardError.contains("reloaded") }
        #expect(try client.request("status")["plugins"]?["app"]?["pid"] == before?["pid"])

        scratch.write("update.sh", "#!/bin/sh\n# edited\nexec '\(PluginFixtures.behave)'\n")
        daemon.send(signal: 1)
        try DaemonTraffic.eventually("the update plugin is restarted") {
            let entry = try client.request("status")["plugins"]?["app"]
            return entry?["state"] == "running" && entry?["pid"] != before?["pid"]
        }
        #expect(daemon.standardError.contains("app restarted (its files changed; the model is kept)"))
        let model = try client.request("model")
        #expect(model.seq == 3 && model.model?["total"] == 6, "the model is kept: \(model)")
        #expect(try client.request(#"{"type":"add","n":4}"#).seq == 4)
        #expect(try client.request("model").model?["total"] == 10)
        let newCalls = scratch.read("calls").split(separator: "\n").dropFirst(callsBefore).map(String.init)
        #expect(newCalls == ["updateBatch 1"], "no replay, no init: \(newCalls)")
        try daemon.terminate()
    }
}
