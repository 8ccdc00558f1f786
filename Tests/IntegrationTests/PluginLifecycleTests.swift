import Glibc
import MobiusJSON
import MobiusTestSupport
import Testing

/// docs/protocol.md 2.1, 2.2, 2.4: start-up handshakes that fail, the start limit, protocol violations, shutdown
/// escalation, process groups, and routing conflicts.
@Suite(.serialized, .timeLimit(.scaled(minutes: 3)))
struct PluginLifecycleTests {
    private func start(_ worker: JSONValue) throws -> (DaemonProcess, DaemonLineClient) {
        let daemon = try DaemonProcess.start(config: PluginFixtures.config(plugins: ["worker": worker]))
        return (daemon, try daemon.connect())
    }

    private func worker(_ client: DaemonLineClient) throws -> JSONValue? {
        try client.request("status")["plugins"]?["worker"]
    }

    @Test(arguments: [
        ("exit-early", "exit status 3"), ("silent", "did not answer initialize"), ("garbage", "not JSON"),
    ])
    func failedHandshakeRestartsUntilTheStartLimit(mode: String, reason: String) throws {
        // A sanitized daemon starts the plugin slower: the handshake's time is scaled, or `exit-early` could time out,
        // and so is the start limit's interval, or three `silent` starts would no longer fit in it.
        let startTimeout = JSONValue.number(JSONNumber(2 * TestTime.scale))
        let interval = 60 * TestTime.scale
        let restart: JSONValue = [
            "initialDelay": 0.02, "maxDelay": 0.05, "burst": 3, "interval": .number(JSONNumber(interval)),
        ]
        let entry = PluginFixtures.behave(
            options: ["mode": .string(mode)],
            ["restart": restart, "startTimeout": startTimeout, "onError": ["type": "failed"]])
        let (daemon, client) = try start(entry)
        try DaemonTraffic.eventually("the plugin ends up failed after 3 starts", timeout: .seconds(20)) {
            try worker(client)?["state"] == "failed"
        }
        #expect(try worker(client)?["restarts"] == 2, "3 starts: the first and 2 restarts")
        // The log is written by its own thread: it may trail the state `status` reports.
        try DaemonTraffic.eventually("the log says why and that the start limit was reached") {
            daemon.standardError.contains(reason)
                && daemon.standardError.contains("failed: 3 starts within \(Double(interval)) s")
        }
        #expect(daemon.isRunning, "a failed plugin does not take the daemon down")
        try daemon.terminate()
    }

    @Test func wrongProtocolVersionFailsWithoutRestarts() throws {
        let (daemon, client) = try start(PluginFixtures.behave(options: ["protocol": 2]))
        try DaemonTraffic.eventually("the plugin is failed") { try worker(client)?["state"] == "failed" }
        #expect(try worker(client)?["restarts"] == 0)
        try DaemonTraffic.eventually("the log names both versions") {
            daemon.standardError.contains("speaks protocol 2; this mobiusd speaks protocol 1")
        }
        try daemon.terminate()
    }

    @Test func effectsToAFailedPluginFailAtOnce() throws {
        let restart: JSONValue = ["initialDelay": 0.02, "maxDelay": 0.05, "burst": 1, "interval": 60]
        let entry = PluginFixtures.behave(
            options: ["effects": ["job"]], ["restart": restart, "onError": ["type": "effectFailed"]])
        let (daemon, client) = try start(entry)
        #expect(try client.request(PluginFixtures.emit(["type": "job", "do": "crash"])).isAck)
        try DaemonTraffic.eventually("one crash uses up a burst of 1") { try worker(client)?["state"] == "failed" }
        #expect(try client.request(PluginFixtures.emit(["type": "job", "do": "ok"])).isAck)
        try DaemonTraffic.eventually("the next effect fails with Unavailable") {
            let seen = try client.request("model").model?["seen"]?.arrayValue ?? []
            return seen.contains { $0["error"]?["code"] == "Unavailable" }
        }
        try daemon.terminate()
    }

    /// Each effect in flight fails with ProtocolViolation, the one whose answer broke the protocol too: the soak
    /// found the effect answered with a malformed `result.events` counted as failed but never reported, so its
    /// `onError` event never came (docs/reliability.md, "Soak").
    @Test(arguments: [
        ("huge", "over maxLineBytes"), ("pollute", "not JSON"), ("bad-events", #""result.events" is not an array"#),
    ])
    func protocolViolationRestartsThePlugin(action: String, reason: String) throws {
        let entry = PluginFixtures.behave(
            options: ["bytes": 300_000],
            ["restart": PluginFixtures.quickRestart, "maxLineBytes": 65_536, "onError": ["type": "effectFailed"]])
        let (daemon, client) = try start(entry)
        #expect(try client.request(PluginFixtures.emit(["type": "job", "do": "hang"])).isAck)
        #expect(try client.request(PluginFixtures.emit(["type": "job", "do": .string(action)])).isAck)
        try DaemonTraffic.eventually("the plugin restarts after the violation") {
            let entry = try worker(client)
            return entry?["restarts"] == 1 && entry?["state"] == "running"
        }
        try DaemonTraffic.eventually("the effects in flight fail with ProtocolViolation") {
            let seen = try client.request("model").model?["seen"]?.arrayValue ?? []
            return seen.filter { $0["error"]?["code"] == "ProtocolViolation" }.count == 2
        }
        try DaemonTraffic.eventually("the log says the plugin broke the protocol, and how") {
            daemon.standardError.contains("broke the protocol") && daemon.standardError.contains(reason)
        }
        try daemon.terminate()
    }

    @Test func pluginIgnoringSIGTERMIsKilledAtTheDeadline() throws {
        let (daemon, client) = try start(PluginFixtures.behave(options: ["mode": "ignore-term"]))
        guard let pid = try worker(client)?["pid"]?.int64Value else {
            Issue.record("no pid in status")
            return
        }
        let before = ContinuousClock.now
        try daemon.terminate(timeout: .seconds(20))
        let took = ContinuousClock.now - before
        #expect(took >= .seconds(3), "stdin closed, SIGTERM 2 s later, SIGKILL 2 s after that: \(took)")
        #expect(!DaemonSpawn.processExists(Int32(pid)), "the plugin is gone")
        #expect(daemon.standardError.contains("sending SIGKILL"), "\(daemon.standardError)")
    }

    @Test func childrenOfAnExitedPluginAreEnded() throws {
        let scratch = DaemonScratch()
        let pidFile = scratch.file("child.pid")
        let entry = PluginFixtures.behave(
            options: ["childPidFile": .string(pidFile)], ["restart": PluginFixtures.quickRestart])
        let (daemon, client) = try start(entry)
        #expect(try client.request(PluginFixtures.emit(["type": "job", "do": "child"])).isAck)
        try DaemonTraffic.eventually("the child's pid is written") { !scratch.read("child.pid").isEmpty }
        guard let child = Int32(scratch.read("child.pid").trimmingCharacters(in: .whitespacesAndNewlines)) else {
            Issue.record("no child pid")
            return
        }
        try DaemonTraffic.eventually("the child left in the plugin's process group is ended") {
            !DaemonSpawn.processExists(child)
        }
        try daemon.terminate()
    }

    @Test func pluginThatClosesItsStdoutIsEndedAndRestarted() throws {
        let entry = PluginFixtures.behave(
            options: [:], ["restart": PluginFixtures.quickRestart, "timeout": 60, "onError": ["type": "effectFailed"]])
        let (daemon, client) = try start(entry)
        guard let first = try worker(client)?["pid"]?.int64Value else {
            Issue.record("no pid in status")
            return
        }
        #expect(try client.request(PluginFixtures.emit(["type": "job", "do": "hang"])).isAck)
        #expect(try client.request(PluginFixtures.emit(["type": "job", "do": "close-stdout"])).isAck)
        try DaemonTraffic.eventually("both effects in flight fail with PluginExited long before their timeout") {
            let seen = try client.request("model").model?["seen"]?.arrayValue ?? []
            return seen.filter { $0["error"]?["code"] == "PluginExited" }.count == 2
        }
        try DaemonTraffic.eventually("the plugin is restarted") {
            let entry = try worker(client)
            return entry?["restarts"] == 1 && entry?["state"] == "running"
        }
        #expect(!DaemonSpawn.processExists(Int32(first)), "the plugin that closed its stdout is ended")
        try DaemonTraffic.eventually("the log says why") { daemon.standardError.contains("closed its stdout") }
        try daemon.terminate()
    }

    @Test func shutdownKillsAChildThatIgnoresSIGTERM() throws {
        let scratch = DaemonScratch()
        let pidFile = scratch.file("child.pid")
        let (daemon, client) = try start(PluginFixtures.behave(options: ["childPidFile": .string(pidFile)]))
        #expect(try client.request(PluginFixtures.emit(["type": "job", "do": "stubborn-child"])).isAck)
        try DaemonTraffic.eventually("the child ignores SIGTERM and wrote its pid") {
            !scratch.read("child.pid").isEmpty
        }
        guard let child = Int32(scratch.read("child.pid").trimmingCharacters(in: .whitespacesAndNewlines)) else {
            Issue.record("no child pid")
            return
        }
        defer { if DaemonSpawn.processExists(child) { _ = kill(child, SIGKILL) } }
        let before = ContinuousClock.now
        try daemon.terminate(timeout: .seconds(20))
        let took = ContinuousClock.now - before
        #expect(!DaemonSpawn.processExists(child), "the child that ignored SIGTERM is killed before the daemon exits")
        #expect(took >= .milliseconds(1900), "SIGTERM to the group, SIGKILL 2 s later: \(took)")
        #expect(took < TestTime.scaled(.seconds(4)), "the daemon exits right after the group is gone: \(took)")
    }

    @Test func controlBytesFromAPluginAreEscapedInTheLog() throws {
        let entry = PluginFixtures.behave(options: [:], ["restart": PluginFixtures.quickRestart])
        let (daemon, client) = try start(entry)
        #expect(try client.request(PluginFixtures.emit(["type": "job", "do": "controls"])).isAck)
        try DaemonTraffic.eventually("the violation and the stderr line are logged") {
            let log = daemon.standardError
            return log.contains("broke the protocol") && log.contains("plugin worker: stderr")
        }
        let log = daemon.standardError
        #expect(!log.unicodeScalars.contains { $0.value < 0x20 && $0 != "\n" }, "\(log.debugDescription)")
        #expect(!log.contains("\u{FFFD}"), "bytes that are not UTF-8 are escaped, not replaced")
        #expect(log.contains(#"not json \x00 nul \x1b[31m esc \x07 bel \xff\xc3 not UTF-8 é"#), "\(log)")
        #expect(log.contains(#"plugin worker: stderr \x00 nul \x1b[31m esc \x07 bel \xff\xc3 not UTF-8 é"#), "\(log)")
        try daemon.terminate()
    }

    /// A config whose update is the Python SDK's fixture plugin (Plugins/sdk/python/fixture_plugin.py).
    private func startSDKUpdate() throws -> (DaemonProcess, DaemonLineClient) {
        let fixture = PluginFixtures.directory + "/../../../Plugins/sdk/python/fixture_plugin.py"
        let restart: JSONValue = ["initialDelay": 0.02, "maxDelay": 0.05, "burst": 2, "interval": 60]
        let config: JSONValue = [
            "app": "sdktest", "update": ["plugin": "app"],
            "plugins": ["app": ["exec": [.string(fixture)], "restart": restart]],
        ]
        let daemon = try DaemonProcess.start(config: String(decoding: config.encoded(), as: UTF8.self))
        return (daemon, try daemon.connect())
    }

    @Test func aPythonPluginsExitStatusIsLogged() throws {
        let (daemon, client) = try startSDKUpdate()
        _ = try client.request(#"{"type":"exit","status":3}"#)
        try DaemonTraffic.eventually("the log has the status sys.exit gave") {
            daemon.standardError.contains("plugin app exited (exit status 3)")
        }
        #expect(!daemon.standardError.contains("exit status 0"), "\(daemon.standardError)")
        try daemon.terminate()
    }

    @Test func aPythonUpdateThatRaisesIsACrashNotTheSendersFault() throws {
        let (daemon, client) = try startSDKUpdate()
        let reply = try client.request(#"{"type":"boom"}"#)
        #expect(reply.ok == false && reply.errorCode != "InvalidEvent", "\(reply.value)")
        // The plugin's stderr lines are rate-limited; the exit line carries the last ones, the exception's among them.
        try DaemonTraffic.eventually("the traceback is logged as an error, and the plugin's exit with the exception") {
            let log = daemon.standardError
            return log.contains("error plugin app: Traceback (most recent call last):")
                && log.contains("plugin app exited (exit status 1); its last stderr lines: Traceback")
                && log.contains("| ZeroDivisionError: division by zero")
        }
        try daemon.terminate()
    }

    @Test func twoPluginsClaimingOneKeyFailStartUpNamingBoth() throws {
        let config = PluginFixtures.config(
            plugins: ["first": PluginFixtures.behave(), "second": PluginFixtures.behave()])
        let scratch = DaemonScratch()
        let path = scratch.write("mobiusd.json", config)
        let check = try DaemonToolRun.mobiusd(["--config", path, "--check"])
        #expect(check.exit == .exited(1))
        #expect(
            check.stderr.contains("first") && check.stderr.contains("second") && check.stderr.contains("\"job\""),
            "\(check.stderr)")
        let daemon = try DaemonProcess(
            scratch: scratch, arguments: ["--config", path, "--socket", scratch.file("x.sock")],
            socketPath: scratch.file("x.sock"), waitForSocket: false)
        let exit = try daemon.waitForExit(timeout: .seconds(20))
        #expect(exit == .exited(1), "\(exit)")
        #expect(daemon.standardError.contains("both claim effect key \"job\""), "\(daemon.standardError)")
    }

    @Test func checkRunsTheHandshake() throws {
        let scratch = DaemonScratch()
        let good = scratch.write("good.json", PluginFixtures.config(plugins: ["worker": PluginFixtures.behave()]))
        let okRun = try DaemonToolRun.mobiusd(["--config", good, "--check"])
        #expect(okRun.exit == .exited(0), "\(okRun.stderr)")
        let bad = scratch.write(
            "bad.json",
            PluginFixtures.config(plugins: ["worker": PluginFixtures.behave(options: ["mode": "exit-early"])]))
        let badRun = try DaemonToolRun.mobiusd(["--config", bad, "--check"])
        #expect(badRun.exit == .exited(1))
        #expect(badRun.stderr.contains("plugins.worker") && badRun.stderr.contains("exit status 3"), "\(badRun.stderr)")
    }

    @Test func monitorsSeePluginStateChanges() throws {
        let entry = PluginFixtures.behave(options: [:], ["restart": PluginFixtures.quickRestart])
        let (daemon, client) = try start(entry)
        let monitor = try daemon.connect()
        #expect(try monitor.request("monitor").ok == true)
        #expect(try client.request(PluginFixtures.emit(["type": "job", "do": "crash"])).isAck)
        var states: [String] = []
        while !states.contains("running") {
            let item = try monitor.readReply(timeout: .seconds(20))
            if item["trace"] == "plugin" && item["plugin"] == "worker", let state = item["state"]?.stringValue {
                states.append(state)
            }
        }
        #expect(states == ["backoff", "running"], "\(states)")
        try daemon.terminate()
    }
}
