import Foundation
import MobiusJSON
import MobiusSystem
import Testing

/// A D-Bus source is an edge of the daemon: while a plugin's full queue pushes back, its signals wait in the bus
/// thread's inbox and are applied once the queue has drained (docs/plugins.md, "Backpressure").
@Suite(.serialized, .timeLimit(.scaled(minutes: 2)))
struct DBusBackpressureTests {
    @Test func aSignalWaitsWhileAPluginPushesBack() throws {
        let bus = try PrivateBus()
        let fx = PluginFixtures.behave(options: [:], ["maxQueued": 2, "concurrency": 1, "timeout": 2])
        var config = try JSONValue(parsing: Array(PluginFixtures.config(plugins: ["fx": fx]).utf8))
        guard case .object(var members) = config else { throw DaemonTestError("the fixture config is not an object") }
        members["dbus"] = [["bus": .string(bus.address), "type": "add", "match": ["member": "Ping"]]]
        config = .object(members)
        let daemon = try DaemonProcess.start(config: String(decoding: config.encoded(), as: UTF8.self))
        let client = try daemon.connect()
        try eventually("the source connects") { try client.dbusStatus("add")["state"] == "connected" }
        let hang = PluginFixtures.emit(["type": "job", "do": "hang"])
        try client.send(lines: [hang, hang, hang])
        for seq in 1...3 { #expect(try client.readReply(timeout: .seconds(10)).seq == Int64(seq)) }
        try bus.peer("emit", "Ping", "held")
        Thread.sleep(forTimeInterval: 0.5)
        let held = try client.request("status")
        #expect(held["plugins"]?["fx"]?["pushingBack"] == true, "\(held)")
        #expect(held.seq == 3 && held["queues"]?["dbus"] == 1, "the signal waits in its inbox: \(held)")
        try eventually("the signal is applied once fx has drained") {
            try client.request("model").model?["total"] == 1
        }
        #expect(try client.request("ping").seq == 4)
        try daemon.terminate()
    }
}
