import MobiusJSON
import MobiusSystem
import MobiusTestSupport
import Testing

/// Bad input from the bus (issue 8, item 7): a flood, huge arrays and strings, deep nesting. Each has a defined
/// outcome: counted, bounded, and the daemon keeps serving.
@Suite("D-Bus hostile peers", .serialized, .timeLimit(.scaled(minutes: 3)))
struct DBusHostileTests {
    @Test("a flood of signals: every one is applied or counted as dropped, and the socket answers throughout")
    func flood() throws {
        let bus = try PrivateBus()
        let daemon = try DBusSourceTests.recorder(
            bus, sources: [#"{"bus":"BUS","type":"f","match":{"member":"Flood"}}"#])
        let client = try daemon.connect()
        try eventually("connected") { try client.dbusStatus("f")["state"] == "connected" }
        let total = 5_000
        let (flooder, _) = try bus.startPeer("flood-then-wait", name: "flood", argument: String(total))
        var pings = 0
        while (try? flooder.termination()) == nil && pings < 10_000 {
            #expect(try client.request("ping", timeout: .seconds(5)).ok == true)
            pings += 1
        }
        try eventually("every signal applied or dropped") {
            let status = try client.dbusStatus("f")
            let signals = status["signals"]?.int64Value ?? 0
            let dropped = status["dropped"]?.int64Value ?? 0
            return signals + dropped == Int64(total)
        }
        let signals = try client.dbusStatus("f")["signals"]?.int64Value
        try eventually("every signal handed over is applied") {
            try client.recorderModel()["count"]?.int64Value == signals
        }
        if try client.dbusStatus("f")["dropped"]?.int64Value ?? 0 > 0 {
            try eventually("a drop is logged with the bound that refused it") {
                daemon.standardError.contains("events are waiting for the loop (the loop is behind)")
            }
        }
        #expect(try Sanitizer.inflatesMemory || daemon.residentBytes() < 200 << 20)
        #expect(try daemon.terminate() == .exited(0))
    }

    @Test("a signal past maxValues or maxStringBytes is counted as tooLarge, not converted; the next one flows")
    func tooLarge() throws {
        let bus = try PrivateBus()
        let daemon = try DBusSourceTests.recorder(
            bus,
            sources: [
                #"{"bus":"BUS","type":"t","match":{"interface":"org.mobiusd.Test"},"maxValues":1000,"#
                    + #""maxStringBytes":4096}"#
            ])
        let client = try daemon.connect()
        try eventually("connected") { try client.dbusStatus("t")["state"] == "connected" }
        try bus.peer("huge", "20000000")  // 20 MB byte array
        try bus.peer("wide", "5000")  // 5,000 strings: past maxValues
        try bus.peer("emit", "Long", String(repeating: "x", count: 5000))  // past maxStringBytes
        try bus.peer("wide", "10")
        try eventually("the small one is applied") { try DBusSourceTests.events(client).count == 1 }
        #expect(try client.dbusStatus("t")["tooLarge"] == 3)
        #expect(try DBusSourceTests.events(client).first?["member"] == "Wide")
        #expect(try Sanitizer.inflatesMemory || daemon.residentBytes() < 200 << 20)
        #expect(daemon.standardError.contains("maxValues"))
        #expect(try daemon.terminate() == .exited(0))
    }

    @Test("variants nested as deep as the bus allows convert; deeper ones never reach the daemon")
    func deepNesting() throws {
        let bus = try PrivateBus()
        let daemon = try DBusSourceTests.recorder(
            bus, sources: [#"{"bus":"BUS","type":"t","match":{"member":"Deep"}}"#])
        let client = try daemon.connect()
        try eventually("connected") { try client.dbusStatus("t")["state"] == "connected" }
        try bus.peer("deep", "60")
        try eventually("the nested one is applied") { try DBusSourceTests.events(client).count == 1 }
        #expect(try DBusSourceTests.events(client).first?["args"] == [1], "a variant is its value, at any depth")
        // libdbus refuses to build or route a message nested past its limit; whatever the sender gets, the daemon
        // sees nothing and keeps its connection.
        _ = try? bus.peer("deep", "200")
        try bus.peer("deep", "1")
        try eventually("the next one arrives") { try client.dbusStatus("t")["signals"] == 2 }
        #expect(try client.dbusStatus("t")["reconnects"] == 0)
        #expect(try daemon.terminate() == .exited(0))
    }

    @Test("a bus that accepts but never answers (stopped) holds up only its own thread; it connects when resumed")
    func stoppedBus() throws {
        let bus = try PrivateBus()
        let pid = String(bus.pid)
        #expect(try DaemonToolRun.run("kill", ["-STOP", pid]).exit == .exited(0))
        defer { _ = try? DaemonToolRun.run("kill", ["-CONT", pid]) }
        let daemon = try DBusSourceTests.recorder(
            bus, sources: [#"{"bus":"BUS","type":"t","match":{"member":"Ping"}}"#])
        let client = try daemon.connect()
        #expect(try client.request("ping").ok == true, "the reactor does not wait for the bus")
        #expect(try client.dbusStatus("t")["state"] == "connecting")
        #expect(try client.request(#"{"type":"x"}"#).ok == true)
        #expect(try DaemonToolRun.run("kill", ["-CONT", pid]).exit == .exited(0))
        try eventually("connected once the bus runs") { try client.dbusStatus("t")["state"] == "connected" }
        try bus.peer("emit", "Ping", "resumed")
        try eventually("the signal arrives") { try client.dbusStatus("t")["signals"] == 1 }
        #expect(try daemon.terminate() == .exited(0))
    }

    @Test("a peer that sends a string that is not UTF-8 is dropped by the bus; the daemon sees nothing and carries on")
    func invalidUTF8() throws {
        let bus = try PrivateBus()
        let daemon = try DBusSourceTests.recorder(
            bus, sources: [#"{"bus":"BUS","type":"t","match":{"member":"Ping"}}"#])
        let client = try daemon.connect()
        try eventually("connected") { try client.dbusStatus("t")["state"] == "connected" }
        #expect(try bus.peer("invalid-utf8").stdout.contains("disconnected"))
        try bus.peer("emit", "Ping", "valid")
        try eventually("the valid one is applied") { try DBusSourceTests.events(client).count == 1 }
        #expect(try DBusSourceTests.events(client).first?["args"] == ["valid"])
        #expect(try client.dbusStatus("t")["reconnects"] == 0 && client.dbusStatus("t")["tooLarge"] == 0)
        #expect(try daemon.terminate() == .exited(0))
    }
}
