import MobiusJSON
import MobiusSystem
import Testing

/// READY=1 and D-Bus sources (docs/protocol.md 3 and 4): it waits for reachable buses' matches and initial reads, never
/// for an unreachable bus.
@Suite("D-Bus sources and READY=1", .serialized, .timeLimit(.scaled(minutes: 2)))
struct DBusReadinessTests {
    static func start(
        _ bus: PrivateBus, _ listener: NotifyListener, _ scratch: DaemonScratch, source: String
    ) throws
        -> DaemonProcess
    {
        let config = scratch.write(
            "recorder.json", #"{"dbus":[\#(source.replacingOccurrences(of: "BUS", with: bus.address))]}"#)
        return try SystemdNotifyTests.start(
            listener, scratch: scratch, program: DaemonSpawn.fixture("mobiusd-fixture-dbus-recorder"),
            arguments: ["--ephemeral", "--config", config])
    }

    @Test("an unreachable bus does not hold back READY=1; the source shows its error")
    func unreachable() throws {
        let bus = try PrivateBus(start: false)
        let scratch = DaemonScratch()
        let listener = try NotifyListener(scratch: scratch)
        let daemon = try Self.start(bus, listener, scratch, source: #"{"bus":"BUS","type":"t","name":"r"}"#)
        try listener.next("READY", "1")
        let status = try daemon.connect().dbusStatus("r")
        #expect(status["state"] != "connected" && status["lastError"]?.stringValue?.isEmpty == false, "\(status)")
        #expect(try daemon.terminate() == .exited(0))
    }

    @Test("a reachable bus: READY=1 comes after its matches are in and its initial read is done")
    func reachable() throws {
        let bus = try PrivateBus()
        _ = try bus.startPeer("serve", name: "service")
        let scratch = DaemonScratch()
        let listener = try NotifyListener(scratch: scratch)
        let daemon = try Self.start(
            bus, listener, scratch,
            source: #"{"bus":"BUS","type":"t","name":"r","match":{"member":"Ping"},"#
                + #""initialRead":{"destination":"org.mobiusd.TestService","path":"/org/mobiusd/Test","#
                + #""interface":"org.freedesktop.DBus.Properties","member":"GetAll","signature":"s","args":["x"]}}"#)
        try listener.next("READY", "1")
        let client = try daemon.connect()
        let status = try client.dbusStatus("r")
        #expect(status["state"] == "connected" && status["reads"] == 1, "\(status)")
        try bus.peer("emit", "Ping", "after ready")
        try eventually("the read and the signal are applied") {
            try client.recorderModel()["count"] == 2
        }
        #expect(try daemon.terminate() == .exited(0))
    }
}
