import Foundation
import MobiusJSON
import MobiusTestSupport
import Testing

/// docs/protocol.md 2.3: a plugin's host-side queue is bounded by pushing back, never by dropping. When a plugin has
/// `maxQueued` effects waiting, the daemon stops taking events from the edges (clients, D-Bus, timers) until the
/// queue drains, while plugin results and plugin events keep flowing; the update plugin's channel is always read.
@Suite(.serialized, .timeLimit(.scaled(minutes: 4)))
struct PluginBackpressureTests {
    /// Waits until `plugin` has handled `count` effects and returns its status entry.
    private func waitForHandled(
        _ count: Int64, plugin: String, client: DaemonLineClient, timeout: Duration = .seconds(90)
    ) throws -> JSONValue? {
        var entry: JSONValue?
        try DaemonTraffic.eventually("plugin \(plugin) handles \(count) effects", timeout: timeout) {
            entry = try client.request("status", timeout: .seconds(20))["plugins"]?[plugin]
            let done = (entry?["handled"]?.int64Value ?? 0) + (entry?["failed"]?.int64Value ?? 0)
            return done >= count
        }
        return entry
    }

    /// The bursts' socket settings: their client reads no reply before it has sent every line, while the plugin's
    /// queue pushes back, so the stall timeout is scaled as the tests' waits are.
    static let socket: JSONValue = ["stallTimeout": .number(JSONNumber(DaemonTraffic.stallTimeout))]

    /// Sends `lines` pipelined and reads every reply; returns the replies.
    private func pipeline(_ lines: [String], on client: DaemonLineClient) throws -> [DaemonReply] {
        try client.send(lines: lines)
        return try (0..<lines.count).map { _ in try client.readReply(timeout: .seconds(60)) }
    }

    /// The counter's decrement at 0 emits `{"type":"beep"}`: 20,000 pipelined decrements, each an effect for a
    /// plugin with the default concurrency (64) and a small `maxQueued`, all run.
    @Test func builtInUpdateBurstRunsEveryEffect() throws {
        let fx = PluginFixtures.behave(options: ["effects": ["beep"]], ["maxQueued": 256])
        let config: JSONValue = [
            "app": "burst", "update": ["builtin": "counter"], "plugins": ["fx": fx], "socket": Self.socket,
        ]
        let daemon = try DaemonProcess.start(config: String(decoding: config.encoded(), as: UTF8.self))
        let client = try daemon.connect()
        let replies = try pipeline(Array(repeating: #"{"type":"decrement"}"#, count: 20_000), on: client)
        let refused = replies.first { !$0.isAck }
        #expect(refused == nil, "every event acked: \(String(describing: refused))")
        let entry = try waitForHandled(20_000, plugin: "fx", client: client)
        #expect(entry?["handled"] == 20_000 && entry?["failed"] == 0, "\(String(describing: entry))")
        try daemon.terminate()
    }

    /// The chain event → update plugin → effect plugin → event: every effect runs, every event it sends back is
    /// applied.
    @Test func updatePluginChainRunsEveryEffect() throws {
        let fx = PluginFixtures.behave(options: [:], ["maxQueued": 256])
        let daemon = try DaemonProcess.start(config: PluginFixtures.config(plugins: ["fx": fx], socket: Self.socket))
        let client = try daemon.connect()
        let event = PluginFixtures.emit(["type": "job", "do": "events"])
        let replies = try pipeline(Array(repeating: event, count: 20_000), on: client)
        let refused = replies.first { !$0.isAck }
        #expect(refused == nil, "every event acked: \(String(describing: refused))")
        let entry = try waitForHandled(20_000, plugin: "fx", client: client)
        #expect(entry?["handled"] == 20_000 && entry?["failed"] == 0, "\(String(describing: entry))")
        // Each effect sends three events back: 20,000 + 60,000 applied in all.
        try DaemonTraffic.eventually("the plugin's events are applied", timeout: .seconds(60)) {
            try client.request("ping", timeout: .seconds(20)).seq == 80_000
        }
        try daemon.terminate()
    }

    /// Effects that never answer fill a small queue: the client's next event waits while the plugin pushes back,
    /// the daemon burns no CPU meanwhile, `status` on another connection says who pushes back, and once the effects
    /// have timed out (each reported failed, none dropped) the event is applied.
    @Test func heldEdgesWaitWithoutSpinning() throws {
        let fx = PluginFixtures.behave(options: [:], ["maxQueued": 8, "concurrency": 4, "timeout": 1])
        let daemon = try DaemonProcess.start(config: PluginFixtures.config(plugins: ["fx": fx]))
        let client = try daemon.connect()
        let replies = try pipeline(
            Array(repeating: PluginFixtures.emit(["type": "job", "do": "hang"]), count: 40), on: client)
        #expect(replies.allSatisfy { $0.isAck }, "every event acked")
        try client.send(lines: [#"{"type":"add","n":1}"#, "ping"])
        let before = try HostileProbe.cpuSeconds(pid: daemon.pid)
        Thread.sleep(forTimeInterval: 1)
        let used = try HostileProbe.cpuSeconds(pid: daemon.pid) - before
        #expect(used < 0.1, "the daemon used \(used) s of CPU in 1 s while pushed back")
        let observer = try daemon.connect()
        let held = try observer.request("status")
        #expect(held["plugins"]?["fx"]?["pushingBack"] == true, "\(held)")
        #expect(held.seq == 40, "the held event is not applied yet: \(held)")
        let ack = try client.readReply(timeout: .seconds(30))
        #expect(ack.seq == 41, "the event is applied after the queue drained: \(ack)")
        #expect(try client.readReply().seq == 41)
        let entry = try client.request("status")["plugins"]?["fx"]
        let timedOut = entry?["timedOut"]?.int64Value ?? 0
        #expect(timedOut >= 32, "\(String(describing: entry))")
        try daemon.terminate()
    }

    /// A `mobiusd.after` timer that fires while a plugin pushes back is an edge too: its event waits (counted in
    /// `queues.timer`) and is applied once the queue has drained, not dropped and not let past.
    @Test func aTimerEventWaitsWhileAPluginPushesBack() throws {
        let fx = PluginFixtures.behave(options: [:], ["maxQueued": 2, "concurrency": 1, "timeout": 2])
        let daemon = try DaemonProcess.start(config: PluginFixtures.config(plugins: ["fx": fx]))
        let client = try daemon.connect()
        let timer: JSONValue = ["type": "mobiusd.after", "ms": 300, "event": ["type": "add", "n": 5]]
        #expect(try client.request(PluginFixtures.emit(timer)).seq == 1)
        let hang = PluginFixtures.emit(["type": "job", "do": "hang"])
        let replies = try pipeline([hang, hang, hang], on: client)
        #expect(replies.map(\.seq) == [2, 3, 4], "\(replies)")
        Thread.sleep(forTimeInterval: 0.8)
        let held = try client.request("status")
        #expect(held["plugins"]?["fx"]?["pushingBack"] == true, "\(held)")
        #expect(held["queues"]?["timer"] == 1 && held.seq == 4, "the timer's event waits: \(held)")
        try DaemonTraffic.eventually("the timer's event is applied once fx has drained", timeout: .seconds(20)) {
            try client.request("model").model?["total"] == 5
        }
        #expect(try client.request("ping").seq == 5)
        try daemon.terminate()
    }

    /// An update plugin that takes a second per batch, while an effect plugin floods 200,000 events of its own:
    /// the flood fills the loop's queue while an update is in flight.
    private func slowUpdateFloodConfig() -> String {
        PluginFixtures.config(
            plugins: ["fx": PluginFixtures.behave(options: ["count": 200_000])], updateOptions: ["delay": 1],
            updateExtra: ["maxBatch": 65_536])
    }

    /// The daemon keeps reading the update plugin's answers while the flood fills its queue, so it never wedges;
    /// commands are answered during the flood, every flood event is applied, and SIGTERM ends it in time.
    @Test func floodingPluginDoesNotWedgeAnUpdatePlugin() throws {
        let daemon = try DaemonProcess.start(config: slowUpdateFloodConfig())
        let client = try daemon.connect()
        #expect(try client.request(PluginFixtures.emit(["type": "job", "do": "flood"])).isAck)
        try DaemonTraffic.eventually("the flood has started", timeout: .seconds(20)) {
            (try client.request("ping", timeout: .seconds(20)).seq ?? 0) > 1_000
        }
        let during = try client.request("model", timeout: .seconds(10))
        #expect(during.ok == true, "model answered during the flood: \(during)")
        try DaemonTraffic.eventually("all 200,000 flood events are applied", timeout: .seconds(120)) {
            try client.request("ping", timeout: .seconds(20)).seq == 200_001
        }
        let start = ContinuousClock.now
        try daemon.terminate(timeout: .seconds(10))
        #expect(ContinuousClock.now - start < TestTime.scaled(.seconds(10)))
    }

    /// SIGTERM in the middle of a flood ends the daemon within its stop time.
    @Test func terminateDuringAFloodEndsInTime() throws {
        let daemon = try DaemonProcess.start(config: slowUpdateFloodConfig())
        let client = try daemon.connect()
        #expect(try client.request(PluginFixtures.emit(["type": "job", "do": "flood"])).isAck)
        try DaemonTraffic.eventually("the flood has started", timeout: .seconds(20)) {
            (try client.request("ping", timeout: .seconds(20)).seq ?? 0) > 1_000
        }
        let exit = try daemon.terminate(timeout: .seconds(10))
        #expect(exit == .exited(0), "\(exit); stderr: \(daemon.standardError.suffix(2000))")
    }
}
