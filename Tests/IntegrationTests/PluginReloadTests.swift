import MobiusJSON
import Testing

/// SIGHUP with plugins (issue #7, docs/protocol.md 4): changed plugins restart, unchanged ones keep running, new ones
/// start, removed ones stop.
@Suite(.serialized, .timeLimit(.scaled(minutes: 2)))
struct PluginReloadTests {
    @Test func reloadRestartsOnlyWhatChanged() throws {
        let scratch = DaemonScratch()
        let tick: JSONValue = ["exec": [.string(PluginFixtures.tick)]]
        let config = scratch.write(
            "mobiusd.json",
            PluginFixtures.config(plugins: [
                "keep": tick, "change": PluginFixtures.behave(),
                "drop": PluginFixtures.behave(options: ["effects": ["dropped"]]),
            ]))
        let daemon = try DaemonProcess(
            scratch: scratch, arguments: ["--config", config, "--socket", scratch.file("x.sock")],
            socketPath: scratch.file("x.sock"))
        let client = try daemon.connect()
        func plugins() throws -> JSONValue? { try client.request("status")["plugins"] }
        let before = try plugins()
        _ = scratch.write(
            "mobiusd.json",
            PluginFixtures.config(plugins: [
                "keep": tick, "change": PluginFixtures.behave(options: ["new": true]),
                "added": PluginFixtures.behave(options: ["effects": ["other"]]),
            ]))
        daemon.send(signal: 1)
        try DaemonTraffic.eventually("the reload is logged") { daemon.standardError.contains("reloaded") }
        try DaemonTraffic.eventually("the changed and the added plugin run") {
            let now = try plugins()
            return now?["change"]?["state"] == "running" && now?["added"]?["state"] == "running"
        }
        let after = try plugins()
        #expect(after?["keep"]?["pid"] == before?["keep"]?["pid"], "unchanged keeps its process")
        #expect(after?["change"]?["pid"] != before?["change"]?["pid"], "changed got a new process")
        #expect(after?["drop"] == nil, "removed is gone: \(String(describing: after))")
        #expect(daemon.standardError.contains("change restarted") && daemon.standardError.contains("added added"))
        #expect(try client.request(PluginFixtures.emit(["type": "job", "do": "events"])).isAck)
        try DaemonTraffic.eventually("the restarted plugin handles its key") {
            (try client.request("model").model?["seen"]?.arrayValue ?? []).contains { $0["type"] == "fromPlugin" }
        }
        try daemon.terminate()
    }
}
