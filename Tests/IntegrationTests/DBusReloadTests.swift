import MobiusJSON
import MobiusSystem
import Testing

/// SIGHUP with D-Bus sources (issue #7 item 4): a bus whose sources changed is re-matched on a new connection; an
/// unchanged bus keeps its connection.
@Suite("D-Bus reload", .serialized, .timeLimit(.scaled(minutes: 2)))
struct DBusReloadTests {
    @Test("a reload that changes a source's match re-matches that bus")
    func reloadReMatches() throws {
        let bus = try PrivateBus()
        let scratch = DaemonScratch()
        func write(member: String) -> String {
            scratch.write(
                "recorder.json", #"{"dbus":[{"bus":"\#(bus.address)","type":"t","match":{"member":"\#(member)"}}]}"#)
        }
        let config = write(member: "Ping")
        let daemon = try DaemonProcess(
            scratch: scratch, arguments: ["--socket", scratch.file("x.sock"), "--config", config],
            socketPath: scratch.file("x.sock"), name: "recorder",
            program: DaemonSpawn.fixture("mobiusd-fixture-dbus-recorder"))
        let client = try daemon.connect()
        func members() throws -> [String] {
            (try client.recorderModel()["events"]?.arrayValue ?? []).compactMap { $0["member"]?.stringValue }
        }
        try eventually("the source connects") { try client.dbusStatus("t")["state"] == "connected" }
        try bus.peer("emit", "Ping", "before")
        try eventually("Ping is recorded") { try members() == ["Ping"] }
        _ = write(member: "Pong")
        daemon.send(signal: 1)
        try eventually("the reload re-matched the bus") { daemon.standardError.contains("re-matched") }
        try eventually("the new source connects") { try client.dbusStatus("t")["state"] == "connected" }
        try bus.peer("emit", "Ping", "after")
        try bus.peer("emit", "Pong", "after")
        try eventually("Pong is recorded") { try members().contains("Pong") }
        #expect(try members() == ["Ping", "Pong"], "the old match is gone")
        #expect(try daemon.terminate() == .exited(0))
    }
}
