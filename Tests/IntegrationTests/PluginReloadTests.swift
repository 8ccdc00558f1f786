import MobiusJSON
import MobiusSystem
import MobiusTestSupport
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

    /// A plugin retired by a reload while one of its timers was pending: its start timeout (armed at each start,
    /// `startTimeout` after it), or the backoff before its next start. The timer fires after the plugin's runner is
    /// gone and must do nothing; the soak found the daemon trapping there ("Attempted to read an unowned
    /// reference"), a reload or two after a plugin's start (docs/reliability.md, "Soak").
    @Test(arguments: PendingTimer.allCases)
    func aPluginRetiredWithATimerPendingLeavesTheDaemonRunning(timer: PendingTimer) throws {
        let (options, extra) = timer.plugin
        let scratch = DaemonScratch()
        func config(_ generation: Int) -> String {
            var changed = options
            changed["generation"] = .number(JSONNumber(generation))
            return PluginFixtures.config(plugins: ["change": PluginFixtures.behave(options: .object(changed), extra)])
        }
        let path = scratch.write("mobiusd.json", config(0))
        let daemon = try DaemonProcess(
            scratch: scratch, arguments: ["--config", path, "--socket", scratch.file("x.sock")],
            socketPath: scratch.file("x.sock"))
        let client = try daemon.connect()
        // Several starts before the reload, each arming its own start timeout.
        if timer == .earlierStartTimeouts { try SystemClock.sleep(nanoseconds: 300_000_000) }
        for generation in 1...2 {
            _ = scratch.write("mobiusd.json", config(generation))
            #expect(try client.request("reload").ok == true, "reload \(generation)")
        }
        // Past the retired runners' timers (1 s), the daemon still serves.
        try SystemClock.sleep(nanoseconds: 1_500_000_000)
        #expect(daemon.isRunning, "\(timer): the daemon trapped; stderr:\n\(daemon.standardError)")
        #expect(try client.request("status").ok == true)
        #expect(try daemon.terminate() == .exited(0))
    }

    /// The timer a retired plugin leaves pending: a start timeout (1 s after a start that was answered), a
    /// restart's backoff (1 s after a plugin that exits at once), or the start timeouts of earlier starts (a plugin
    /// that exits at once, restarted every 50 ms: each start arms one, and all are pending when it is retired).
    enum PendingTimer: CaseIterable, Sendable {
        case startTimeout, restartBackoff, earlierStartTimeouts

        var plugin: (options: JSONObject, extra: [String: JSONValue]) {
            switch self {
            case .startTimeout: return (["mode": "normal"], ["startTimeout": 1])
            case .restartBackoff: return (["mode": "exit-early"], ["restart": ["initialDelay": 1, "maxDelay": 1]])
            case .earlierStartTimeouts:
                return (
                    ["mode": "exit-early"],
                    [
                        "startTimeout": 1,
                        "restart": ["initialDelay": 0.05, "maxDelay": 0.05, "burst": 100, "interval": 60],
                    ]
                )
            }
        }
    }
}
