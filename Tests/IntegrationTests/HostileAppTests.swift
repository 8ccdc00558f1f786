import Testing

/// docs/protocol.md 1.5 and 2.4: an app's own programming error (an effect that matches two Swift routes) is logged and
/// counted; it never takes the daemon down.
@Suite(.serialized, .timeLimit(.scaled(minutes: 2)))
struct HostileAppTests {
    @Test func effectMatchingTwoSwiftRoutesIsLoggedInsteadOfTrapping() throws {
        let scratch = DaemonScratch()
        let socket = scratch.file("x.sock")
        let daemon = try DaemonProcess(
            scratch: scratch, arguments: ["--socket", socket, "--ephemeral"], socketPath: socket,
            program: DaemonSpawn.fixture("mobiusd-fixture-route-conflict"))
        let client = try daemon.connect()
        // `ring` is applied, then its effect `chime` finds two routes.
        let ring = try client.request(#"{"type":"ring"}"#)
        #expect(ring.isAck && ring.seq == 1, "\(ring)")
        let ping = try client.request("ping", timeout: .seconds(10))
        #expect(ping.ok == true && ping.seq == 1, "\(ping)")
        let tap = try client.request(#"{"type":"tap"}"#)
        #expect(tap.isAck && tap.seq == 2, "\(tap)")
        #expect(daemon.isRunning, "the daemon died: \(daemon.standardError)")
        let status = try daemon.connect().request("status")
        #expect(status.ok == true, "\(status)")
        #expect(try client.request("model").model?["rings"] == 2)
        try DaemonTraffic.eventually("the log names the effect") { daemon.standardError.contains("chime") }
    }

    @Test func effectThatCannotBeEncodedIsLoggedWithTheReason() throws {
        let scratch = DaemonScratch()
        let socket = scratch.file("x.sock")
        let daemon = try DaemonProcess(
            scratch: scratch, arguments: ["--socket", socket, "--ephemeral"], socketPath: socket,
            program: DaemonSpawn.fixture("mobiusd-fixture-route-conflict"))
        let client = try daemon.connect()
        // `label(type:)` has a value labelled `type`, the member that names the case in the type-tagged shape.
        let mislabel = try client.request(#"{"type":"mislabel"}"#)
        #expect(mislabel.isAck && mislabel.seq == 1, "\(mislabel)")
        try DaemonTraffic.eventually("the log says why the effect was not handled") {
            daemon.standardError.contains(
                #"effect not handled (it cannot be encoded: the case label has a value labelled "type", "#
                    + "which the type-tagged shape uses for the case name)")
        }
        #expect(try client.request("status").value["effects"]?["unhandled"] == 1)
        #expect(daemon.isRunning, "the daemon died: \(daemon.standardError)")
    }
}
