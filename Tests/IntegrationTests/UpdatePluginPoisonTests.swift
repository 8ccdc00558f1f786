import MobiusJSON
import Testing

/// docs/protocol.md 2.5: an event the update plugin dies on every time is rejected alone with `PluginCrashed`; the rest of
/// its batch is applied, and those deaths do not use up the plugin's restart budget.
@Suite(.serialized, .timeLimit(.scaled(minutes: 2)))
struct UpdatePluginPoisonTests {
    private func start(batch: Bool) throws -> (DaemonProcess, DaemonLineClient) {
        let config = PluginFixtures.config(
            plugins: [:], batch: batch, updateExtra: ["restart": PluginFixtures.quickRestart])
        let daemon = try DaemonProcess.start(config: config)
        return (daemon, try daemon.connect())
    }

    @Test(arguments: [true, false])
    func aPoisonEventIsRejectedAloneAndTheRestApplied(batch: Bool) throws {
        let (daemon, client) = try start(batch: batch)
        // Three rounds of poison: six deaths, more than restart.burst (5) if they were charged.
        for round in 0..<3 {
            try client.send(lines: [#"{"type":"add","n":1}"#, #"{"type":"poison"}"#, #"{"type":"add","n":2}"#])
            let first = try client.readReply(timeout: .seconds(20))
            let poisoned = try client.readReply(timeout: .seconds(20))
            let third = try client.readReply(timeout: .seconds(20))
            #expect(first.seq == Int64(2 * round + 1), "round \(round): \(first)")
            #expect(poisoned.errorCode == "PluginCrashed", "round \(round): \(poisoned)")
            #expect(
                poisoned.errorMessage?.contains("poisoned by this event") == true, "the last stderr line: \(poisoned)")
            #expect(third.seq == Int64(2 * round + 2), "round \(round): \(third)")
        }
        let model = try client.request("model")
        #expect(model.model?["total"] == 9, "\(model)")
        let entry = try client.request("status")["plugins"]?["app"]
        #expect(entry?["state"] == "running", "the budget was not spent: \(String(describing: entry))")
        try daemon.terminate()
    }
}
