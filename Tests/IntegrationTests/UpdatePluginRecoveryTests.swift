import MobiusJSON
import Testing

/// PROTOCOL.md 2.5 and 5: replay after a crash goes through the update plugin (in batches), then `init` runs on
/// the recovered model.
@Suite(.serialized, .timeLimit(.minutes(2)))
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
}
