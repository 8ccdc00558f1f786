import MobiusJSON
import MobiusSystem
import MobiusTestSupport
import Testing

/// docs/plugins.md, "Update plugins": an update request unanswered within the plugin's `updateTimeout` ends the plugin
/// as a crash on that request would (SIGTERM to its group, a restart under its policy, the poison-event rules), and
/// `status`, `ping` and `hello` of other connections are answered while the loop waits for it.
@Suite(.serialized, .timeLimit(.scaled(minutes: 3)))
struct UpdatePluginTimeoutTests {
    /// A daemon whose update is behave.py with `updateTimeout` seconds; `hangs` is the file it writes a line to each
    /// time it starts to hang.
    private func start(batch: Bool, updateTimeout: Double) throws -> (DaemonProcess, DaemonLineClient, hangs: String) {
        let scratch = DaemonScratch()
        let hangs = scratch.file("hangs")
        let config = PluginFixtures.config(
            plugins: [:], batch: batch,
            updateOptions: ["hangs": .string(hangs), "marker": .string(scratch.file("hung-once"))],
            updateExtra: ["restart": PluginFixtures.quickRestart, "updateTimeout": .number(JSONNumber(updateTimeout)!)])
        let daemon = try DaemonProcess(
            scratch: scratch,
            arguments: ["--config", scratch.write("mobiusd.json", config), "--socket", scratch.file("x.sock")],
            socketPath: scratch.file("x.sock"))
        return (daemon, try daemon.connect(), hangs)
    }

    @Test(arguments: [true, false])
    func aHungUpdateIsEndedAndItsEventRejectedAlone(batch: Bool) throws {
        let (daemon, client, _) = try start(batch: batch, updateTimeout: 0.3)
        // Two rounds: without the poison rules' forgiveness, eight ends (four per round with a batch) would spend
        // the restart budget (burst 5).
        for round in 0..<2 {
            try client.send(lines: [#"{"type":"add","n":1}"#, #"{"type":"hang"}"#, #"{"type":"add","n":2}"#])
            let first = try client.readReply(timeout: .seconds(30))
            let hung = try client.readReply(timeout: .seconds(30))
            let third = try client.readReply(timeout: .seconds(30))
            #expect(first.seq == Int64(2 * round + 1), "round \(round): \(first)")
            #expect(hung.errorCode == "PluginCrashed", "round \(round): \(hung)")
            #expect(hung.errorMessage?.contains("within 0.3 s (updateTimeout)") == true, "\(hung)")
            #expect(third.seq == Int64(2 * round + 2), "round \(round): \(third)")
        }
        #expect(try client.request(#"{"type":"add","n":4}"#).seq == 5, "the next event applies")
        #expect(try client.request("model").model?["total"] == 10)
        let entry = try #require(try client.request("status")["plugins"]?["app"])
        #expect(entry["state"] == "running", "the budget was not spent: \(entry)")
        #expect((entry["restarts"]?.int64Value ?? 0) >= 4, "\(entry)")
        #expect((entry["timedOut"]?.int64Value ?? 0) >= 4, "\(entry)")
        let method = batch ? "updateBatch" : "update"
        #expect(
            daemon.standardError.contains(
                "plugin app did not answer \(method) within 0.3 s (updateTimeout); ending it as after a crash"),
            "\(daemon.standardError)")
        #expect(try daemon.terminate() == .exited(0))
    }

    @Test func anEventTheUpdateHungOnOnceIsAskedAgainAndApplied() throws {
        let (daemon, client, hangs) = try start(batch: true, updateTimeout: 0.3)
        #expect(try client.request(#"{"type":"hangOnce"}"#, timeout: .seconds(30)).seq == 1)
        #expect(try client.request(#"{"type":"add","n":3}"#).seq == 2)
        #expect(daemon.scratch.read("hangs") == "hang\n", "it hung once (\(hangs))")
        let entry = try #require(try client.request("status")["plugins"]?["app"])
        #expect(entry["restarts"] == 1 && entry["timedOut"] == 1, "\(entry)")
        #expect(try daemon.terminate() == .exited(0))
    }

    /// While the update hangs (3 s, twice), another connection's `status`, `ping` and `hello` are answered at
    /// once from the state before the hung pass; a `status` behind the hung event on its own connection waits for it.
    @Test func statusAndPingAreAnsweredWhileTheUpdateHangs() throws {
        let (daemon, client, hangs) = try start(batch: false, updateTimeout: 3)
        try client.send(lines: [#"{"type":"add","n":1}"#, #"{"type":"hang"}"#, "status"])
        try DaemonTraffic.eventually("the update plugin hangs") { FileSystem.exists(hangs) }
        let other = try daemon.connect()
        let status = try other.request("status", timeout: .seconds(1))
        #expect(status.ok == true && status.seq == 0, "\(status)")
        #expect(status["plugins"]?["app"]?["state"] == "running", "\(status)")
        #expect(try other.request("ping", timeout: .seconds(1)).seq == 0)
        #expect(try other.request("hello", timeout: .seconds(1))["app"] == "plugintest")
        let first = try client.readReply(timeout: .seconds(30))
        let hung = try client.readReply(timeout: .seconds(30))
        let after = try client.readReply(timeout: .seconds(5))
        #expect(first.seq == 1, "\(first)")
        #expect(hung.errorCode == "PluginCrashed", "\(hung)")
        #expect(after.ok == true && after.seq == 1, "the status after the hung event waited for it: \(after)")
        #expect(try daemon.terminate() == .exited(0))
    }
}
