import MobiusJSON
import MobiusSystem
import Testing

/// D-Bus sources against a real private dbus-daemon (docs/protocol.md 3): the value mapping of every type, match
/// filtering, initial reads, and a bus that is unreachable at start.
@Suite("D-Bus sources", .serialized, .timeLimit(.scaled(minutes: 3)))
struct DBusSourceTests {
    /// The recorder fixture with `sources` (JSON text of the `dbus` array's items, `BUS` replaced by the address).
    static func recorder(_ bus: PrivateBus, sources: [String]) throws -> DaemonProcess {
        let scratch = DaemonScratch()
        let items = sources.map { $0.replacingOccurrences(of: "BUS", with: bus.address) }.joined(separator: ",")
        let config = scratch.write("recorder.json", #"{"dbus":[\#(items)]}"#)
        return try DaemonProcess(
            scratch: scratch, arguments: ["--socket", scratch.file("x.sock"), "--config", config],
            socketPath: scratch.file("x.sock"), name: "recorder",
            program: DaemonSpawn.fixture("mobiusd-fixture-dbus-recorder"))
    }

    static func events(_ client: DaemonLineClient) throws -> [JSONValue] {
        try client.recorderModel()["events"]?.arrayValue ?? []
    }

    @Test("every D-Bus type maps to JSON as docs/protocol.md 3 says, 64-bit integers exact")
    func everyType() throws {
        let bus = try PrivateBus()
        let daemon = try Self.recorder(bus, sources: [#"{"bus":"BUS","type":"t","match":{"member":"AllTypes"}}"#])
        let client = try daemon.connect()
        try eventually("the source connects") { try client.dbusStatus("t")["state"] == "connected" }
        try bus.peer("all-types")
        try eventually("the signal arrives") { try Self.events(client).count == 1 }
        let event = try Self.events(client)[0]
        let expected = try JSONValue(
            parsing: """
                [255, true, -32768, 65535, -2147483648, 4294967295, -9223372036854775808, 18446744073709551615,
                 1.5, "h\u{e9}llo \u{2713}", "/org/mobiusd/Obj", "a{sv}",
                 {"Percentage": 42.5, "OnBattery": true, "Nested": 7}, [1, "x"], [0, 1, 255], null,
                 {"1": [["a"]]}, [0.5, -1e300], "in variant", [true, false]]
                """)
        #expect(event["args"] == expected)
        #expect(event["args"]?[6]?.numberValue?.int64Value == Int64.min, "int64 exact")
        #expect(event["args"]?[7]?.numberValue?.uint64Value == UInt64.max, "uint64 exact")
        #expect(event["type"] == "t" && event["member"] == "AllTypes" && event["interface"] == "org.mobiusd.Test")
        #expect(event["path"] == "/org/mobiusd/Test" && event["sender"]?.stringValue?.hasPrefix(":") == true)
        #expect(try daemon.terminate() == .exited(0))
    }

    @Test("only signals that match the rule (member and arg0) become events; the event object is merged over")
    func matchFiltering() throws {
        let bus = try PrivateBus()
        let daemon = try Self.recorder(
            bus,
            sources: [
                #"{"bus":"BUS","type":"ping","match":{"interface":"org.mobiusd.Test","member":"Ping","arg0":"yes"},"#
                    + #""event":{"source":"test-bus","path":"overridden"}}"#
            ])
        let client = try daemon.connect()
        try eventually("the source connects") { try client.dbusStatus("ping")["state"] == "connected" }
        let monitor = try daemon.connect()
        #expect(try monitor.request("monitor").ok == true)
        try bus.peer("emit", "Ping", "no")
        try bus.peer("emit", "Other", "yes")
        try bus.peer("emit", "Ping", "yes")
        try eventually("the matching signal is applied") { try client.dbusStatus("ping")["signals"] == 1 }
        try eventually("the matching signal is applied") { try Self.events(client).count == 1 }
        let events = try Self.events(client)
        #expect(events.count == 1, "\(events)")
        #expect(events.first?["args"] == ["yes"])
        #expect(events.first?["source"] == "test-bus" && events.first?["path"] == "overridden")
        let trace = try monitor.readReply()
        #expect(trace["trace"] == "dbus" && trace["source"] == "ping" && trace["event"] == events.first, "\(trace)")
        #expect(try daemon.terminate() == .exited(0))
    }

    @Test("the initial read runs at start and again when its service restarts")
    func initialRead() throws {
        let bus = try PrivateBus()
        let (service, _) = try bus.startPeer("serve", name: "service")
        let daemon = try Self.recorder(
            bus,
            sources: [
                #"{"bus":"BUS","type":"power","match":{"interface":"org.freedesktop.DBus.Properties"},"#
                    + #""initialRead":{"destination":"org.mobiusd.TestService","path":"/org/mobiusd/Test","#
                    + #""interface":"org.freedesktop.DBus.Properties","member":"GetAll","signature":"s","#
                    + #""args":["org.mobiusd.Test"],"event":{"reason":"read"}}}"#
            ])
        let client = try daemon.connect()
        try eventually("the read's event") { try Self.events(client).count == 1 }
        let event = try Self.events(client)[0]
        #expect(event["initialRead"] == true && event["reason"] == "read" && event["member"] == "GetAll")
        #expect(event["args"] == [["OnBattery": true, "Percentage": 55]])
        bus.stopPeer(service)
        _ = try bus.startPeer("serve", name: "service2")
        try eventually("the read runs again for the new owner") { try client.dbusStatus("power")["reads"] == 2 }
        #expect(try daemon.terminate() == .exited(0))
    }

    @Test("a bus unreachable at start: the daemon serves at once, retries, and connects when the bus appears")
    func unreachableAtStart() throws {
        let bus = try PrivateBus(start: false)
        let daemon = try Self.recorder(bus, sources: [#"{"bus":"BUS","type":"t","match":{"member":"Ping"}}"#])
        let client = try daemon.connect()
        #expect(try client.request("ping").ok == true, "start-up was not held back")
        try eventually("backoff with the error") {
            let status = try client.dbusStatus("t")
            return status["state"] == "backoff" && status["lastError"]?.stringValue?.isEmpty == false
        }
        try bus.start()
        try eventually("connects once the bus is there") { try client.dbusStatus("t")["state"] == "connected" }
        try bus.peer("emit", "Ping", "late")
        try eventually("the signal arrives") { try Self.events(client).count == 1 }
        #expect(daemon.standardError.contains("retrying in"))
        #expect(try daemon.terminate() == .exited(0))
    }

    @Test("the bus killed and restarted at the same address: the daemon stays up, reconnects, re-adds its match")
    func busRestart() throws {
        let bus = try PrivateBus()
        let daemon = try Self.recorder(bus, sources: [#"{"bus":"BUS","type":"t","match":{"member":"Ping"}}"#])
        let client = try daemon.connect()
        try eventually("connected") { try client.dbusStatus("t")["state"] == "connected" }
        try bus.peer("emit", "Ping", "before")
        try eventually("first signal") { try Self.events(client).count == 1 }
        try bus.kill()
        try eventually("backoff after the loss") { try client.dbusStatus("t")["state"] == "backoff" }
        #expect(daemon.isRunning)
        try bus.start()
        try eventually("reconnected") {
            let status = try client.dbusStatus("t")
            return status["state"] == "connected" && status["reconnects"] == 1
        }
        try bus.peer("emit", "Ping", "after")
        try eventually("the signal after the restart") { try Self.events(client).count == 2 }
        #expect(try Self.events(client).last?["args"] == ["after"])
        #expect(daemon.standardError.contains("connection lost"))
        #expect(try daemon.terminate() == .exited(0))
    }
}
