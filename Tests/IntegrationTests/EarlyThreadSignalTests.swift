import MobiusSystem
import MobiusTestSupport
import Testing

/// The daemon reads SIGTERM, SIGINT and SIGHUP from a signalfd, which only works while no thread has them unblocked:
/// a thread that does takes their default action and ends the process. Every thread SystemThread starts is born
/// with them blocked, so a thread started before the signalfd exists (the log's once was) cannot bring that back.
@Suite(.serialized, .timeLimit(.scaled(minutes: 2)))
struct EarlyThreadSignalTests {
    @Test func aThreadStartedBeforeTheSignalsAreBlockedDoesNotTakeSIGHUP() throws {
        let scratch = DaemonScratch()
        var environment = SystemProcess.environmentVariables()
        environment["MOBIUSD_FIXTURE_EARLY_THREAD"] = "1"
        let daemon = try DaemonProcess(
            scratch: scratch, arguments: ["--ephemeral", "--socket", scratch.file("x.sock")],
            socketPath: scratch.file("x.sock"), program: DaemonSpawn.fixture("mobiusd-fixture-wedge"),
            environment: environment)
        let client = try daemon.connect()
        #expect(try client.request(#"{"type":"count"}"#).seq == 1)
        for _ in 0..<3 {
            daemon.send(signal: 1)
            try? SystemClock.sleep(nanoseconds: 50_000_000)
        }
        try DaemonTraffic.eventually("the SIGHUPs are handled") { daemon.standardError.contains("SIGHUP") }
        #expect(daemon.isRunning, "SIGHUP ended the daemon: \(String(describing: daemon.exit))")
        #expect(try client.request("ping").seq == 1, "still serving")
        #expect(try daemon.terminate() == .exited(0), "SIGTERM still reaches the signalfd")
    }
}
