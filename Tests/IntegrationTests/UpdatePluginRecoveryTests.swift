import MobiusJSON
import MobiusSystem
import Testing

/// docs/protocol.md 2.5 and 5: replay after a crash goes through the update plugin (in batches), then `init` runs on
/// the recovered model.
@Suite(.serialized, .timeLimit(.scaled(minutes: 2)))
struct UpdatePluginRecoveryTests {
    @Test(arguments: [false, true])
    func crashThenRestartReplaysThroughThePlugin(batch: Bool) throws {
        let scratch = DaemonScratch()
        let calls = scratch.file("calls")
        let config = scratch.write(
            "mobiusd.json",
            PluginFixtures.config(plugins: [:], batch: batch, updateOptions: ["calls": .string(calls)]))
        let arguments = [
            "--config", config, "--socket", scratch.file("x.sock"), "--state-dir", scratch.file("state"),
        ]
        var daemon = try DaemonProcess(scratch: scratch, arguments: arguments, socketPath: scratch.file("x.sock"))
        var client = try daemon.connect()
        for n in 1...5 { #expect(try client.request(#"{"type":"add","n":\#(n)}"#).seq == Int64(n)) }
        daemon.send(signal: 9)
        try daemon.waitForExit()
        let callsBefore = scratch.read("calls").split(separator: "\n").count
        daemon = try DaemonProcess(
            scratch: scratch, arguments: arguments, socketPath: scratch.file("x.sock"), name: "restarted")
        client = try daemon.connect()
        let model = try client.request("model")
        #expect(model.seq == 5 && model.model?["total"] == 15, "recovered through the plugin: \(model)")
        #expect(try client.request(#"{"type":"add","n":1}"#).seq == 6, "seq goes on")
        let replayCalls = scratch.read("calls").split(separator: "\n").dropFirst(callsBefore).map(String.init)
        let method = batch ? "updateBatch 5" : "update 1"
        #expect(replayCalls.first == method, "replay used \(method): \(replayCalls)")
        try daemon.terminate()
    }

    /// An update plugin that cannot start after a crash (a syntax error) leaves the journal unreplayed: the daemon
    /// never becomes ready, answers `model` with `Unavailable` naming the cause (never the snapshot's model under
    /// the journal's seq), says why in `status`, and once the plugin's restart budget is spent exits non-zero. With
    /// the plugin fixed, the next start recovers the real model.
    @Test func aFailedReplayNeverServesAModel() throws {
        let scratch = DaemonScratch()
        let broken = scratch.file("broken")
        // Fails like a Python script with a syntax error while `broken` exists, else runs behave.py.
        let wrapper = try PluginFixtures.breakablePlugin(
            in: scratch, named: "update.sh", stderr: "SyntaxError: invalid syntax")
        let restart: JSONValue = ["initialDelay": 0.5, "maxDelay": 0.5, "burst": 3, "interval": 60]
        let update: JSONValue = [
            "exec": [.string(wrapper)], "options": ["mode": "update", "batch": true], "restart": restart,
        ]
        let config: JSONValue = ["app": "plugintest", "update": ["plugin": "app"], "plugins": ["app": update]]
        let configPath = PluginFixtures.writeConfig(config, in: scratch)
        let arguments = [
            "--config", configPath, "--socket", scratch.file("x.sock"), "--state-dir", scratch.file("state"),
        ]
        var daemon = try DaemonProcess(scratch: scratch, arguments: arguments, socketPath: scratch.file("x.sock"))
        var client = try daemon.connect()
        for n in 1...5 { #expect(try client.request(#"{"type":"add","n":\#(n)}"#).seq == Int64(n)) }
        daemon.send(signal: 9)
        try daemon.waitForExit()

        scratch.write("broken", "")
        let listener = try NotifyListener(scratch: scratch)
        daemon = try SystemdNotifyTests.start(
            listener, scratch: scratch, arguments: ["--config", configPath, "--state-dir", scratch.file("state")])
        let starting = try listener.next(timeout: .seconds(10), "STATUS= naming the stall") {
            $0["STATUS"]?.hasPrefix("starting: recovery waits: update plugin app is") == true
        }
        #expect(starting["STATUS"]?.contains("SyntaxError") == true, "\(starting.text)")
        try DaemonTraffic.eventually("the daemon accepts") { (try? daemon.connect()) != nil }
        client = try daemon.connect()
        let model = try client.request("model", timeout: .seconds(10))
        #expect(model.errorCode == "Unavailable", "no model while the replay waits: \(model)")
        #expect(model.errorMessage?.contains("SyntaxError") == true, "the cause is named: \(model)")
        let event = try client.request(#"{"type":"add","n":100}"#, timeout: .seconds(10))
        #expect(event.errorCode == "Unavailable", "no event is applied either: \(event)")
        let status = try client.request("status", timeout: .seconds(10))
        #expect(status.ok == true && status["recovery"]?.stringValue?.contains("SyntaxError") == true, "\(status)")
        let exit = try daemon.waitForExit(timeout: .seconds(20))
        #expect(exit != .exited(0), "the daemon gives up non-zero: \(exit)")
        let log = daemon.standardError
        #expect(log.contains("cannot replay journaled events 1-5"), "\(exit): \(log)")
        #expect(!log.contains("ready"), "never ready: \(log)")
        #expect(!listener.texts.contains { $0.contains("READY=1") }, "no READY=1: \(listener.texts)")

        try FileSystem.remove(broken)
        daemon = try DaemonProcess(
            scratch: scratch, arguments: arguments, socketPath: scratch.file("x.sock"), name: "fixed")
        client = try daemon.connect()
        let recovered = try client.request("model", timeout: .seconds(10))
        #expect(recovered.seq == 5 && recovered.model?["total"] == 15, "the real model: \(recovered)")
        try daemon.terminate()
    }
}
