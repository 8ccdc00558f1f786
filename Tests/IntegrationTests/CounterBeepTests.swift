import MobiusSystem
import Testing

/// The embedded counter's beep (docs/protocol.md 6): the bundled `mobiusd-beep` plugin when it is installed next to
/// `mobiusd`, else a built-in log line.
@Suite(.serialized, .timeLimit(.scaled(minutes: 1)))
struct CounterBeepTests {
    @Test func decrementAtZeroBeepsThroughThePluginOrTheLog() throws {
        let daemon = try DaemonProcess.start()
        let client = try daemon.connect()
        #expect(try client.request(#"{"type":"decrement"}"#).isAck)
        let installed = FileSystem.isExecutable(DaemonSpawn.fixture("mobiusd-beep"))
        if installed {
            try DaemonTraffic.eventually("the beep plugin handled the effect") {
                try client.request("status")["plugins"]?["beep"]?["handled"] == 1
            }
        } else {
            try DaemonTraffic.eventually("the fallback log line is written") {
                daemon.standardError.contains("decrement at 0 ignored (beep")
            }
            #expect(try client.request("status")["effects"]?["unhandled"] == 0)
        }
        try daemon.terminate()
    }
}
