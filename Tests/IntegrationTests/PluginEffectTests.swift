import MobiusJSON
import MobiusTestSupport
import Testing

/// docs/protocol.md 2.3: effects go to the plugin that claims their key; events come back tied to the effect, in
/// `result.events`, or unsolicited; failures become `onError` events; timeouts cancel; progress extends.
@Suite(.serialized, .timeLimit(.scaled(minutes: 3)))
struct PluginEffectTests {
    private func start(worker: JSONValue, batch: Bool = true) throws -> (DaemonProcess, DaemonLineClient) {
        let daemon = try DaemonProcess.start(config: PluginFixtures.config(plugins: ["worker": worker], batch: batch))
        return (daemon, try daemon.connect())
    }

    private func seen(_ client: DaemonLineClient) throws -> [JSONValue] {
        try client.request("model").model?["seen"]?.arrayValue ?? []
    }

    private func seenTypes(_ client: DaemonLineClient) throws -> [String] {
        try seen(client).compactMap { $0["type"]?.stringValue }
    }

    @Test func effectEventsComeBackInOrder() throws {
        let (daemon, client) = try start(worker: PluginFixtures.behave())
        let ack = try client.request(PluginFixtures.emit(["type": "job", "do": "events"]))
        #expect(ack.isAck, "\(ack)")
        try DaemonTraffic.eventually("three events from the plugin reach the model") {
            try seen(client).filter { $0["type"] == "fromPlugin" }.count == 3
        }
        let numbers = try seen(client).filter { $0["type"] == "fromPlugin" }.compactMap { $0["n"]?.int64Value }
        #expect(numbers == [1, 2, 3], "event notifications first, then result.events: \(numbers)")
        let worker = try client.request("status")["plugins"]?["worker"]
        #expect(worker?["state"] == "running" && worker?["handled"] == 1, "\(String(describing: worker))")
        try daemon.terminate()
    }

    @Test func shellPluginHandlesItsKey() throws {
        let tick: JSONValue = ["exec": [.string(PluginFixtures.tick)]]
        let (daemon, client) = try start(worker: tick)
        #expect(try client.request(PluginFixtures.emit(["type": "tick"])).isAck)
        try DaemonTraffic.eventually("the shell plugin's event arrives") { try seenTypes(client).contains("ticked") }
        #expect(try client.request("status")["plugins"]?["worker"]?["effects"] == ["tick"])
        try daemon.terminate()
    }

    @Test func errorResultBecomesOnErrorEvent() throws {
        let worker = PluginFixtures.behave(options: [:], ["onError": ["type": "effectFailed"]])
        let (daemon, client) = try start(worker: worker)
        #expect(try client.request(PluginFixtures.emit(["type": "job", "do": "error"])).isAck)
        try DaemonTraffic.eventually("the onError event arrives") { try seenTypes(client).contains("effectFailed") }
        let failure = try seen(client).first { $0["type"] == "effectFailed" }
        #expect(failure?["error"]?["code"] == "PluginError")
        #expect(failure?["effect"]?["do"] == "error", "the failed effect rides along: \(String(describing: failure))")
        #expect(failure?["error"]?["message"]?.stringValue?.contains("on purpose") == true)
        #expect(try client.request("status")["plugins"]?["worker"]?["failed"] == 1)
        try daemon.terminate()
    }

    /// An effect whose request would be longer than the plugin's `maxLineBytes` is never sent: it fails at once with
    /// `Unavailable`, and the plugin keeps running and takes the next effect.
    @Test func effectTooLongForThePluginsLineFailsWithoutReachingIt() throws {
        let worker = PluginFixtures.behave(options: [:], ["onError": ["type": "effectFailed"], "maxLineBytes": 1024])
        let (daemon, client) = try start(worker: worker)
        let pad = JSONValue.string(String(repeating: "x", count: 2000))
        #expect(try client.request(PluginFixtures.emit(["type": "job", "do": "crash", "pad": pad])).isAck)
        try DaemonTraffic.eventually("the onError event arrives") { try seenTypes(client).contains("effectFailed") }
        let failure = try seen(client).first { $0["type"] == "effectFailed" }
        #expect(failure?["error"]?["code"] == "Unavailable", "\(String(describing: failure))")
        #expect(failure?["error"]?["message"]?.stringValue?.contains("maxLineBytes 1024") == true)
        #expect(try client.request(PluginFixtures.emit(["type": "job", "do": "events"])).isAck)
        try DaemonTraffic.eventually("the next effect is handled") {
            try seen(client).filter { $0["type"] == "fromPlugin" }.count == 3
        }
        let status = try client.request("status")["plugins"]?["worker"]
        #expect(status?["failed"] == 1 && status?["restarts"] == 0, "\(String(describing: status))")
        try daemon.terminate()
    }

    @Test func crashMidEffectFailsItAtOnceAndRestarts() throws {
        let worker = PluginFixtures.behave(
            options: [:], ["onError": ["type": "effectFailed"], "restart": PluginFixtures.quickRestart, "timeout": 60])
        let (daemon, client) = try start(worker: worker)
        let before = ContinuousClock.now
        #expect(try client.request(PluginFixtures.emit(["type": "job", "do": "hang"])).isAck)
        #expect(try client.request(PluginFixtures.emit(["type": "job", "do": "crash"])).isAck)
        try DaemonTraffic.eventually("both in-flight effects fail with PluginExited", timeout: .seconds(20)) {
            try seen(client).filter { $0["type"] == "effectFailed" && $0["error"]?["code"] == "PluginExited" }.count
                == 2
        }
        #expect(ContinuousClock.now - before < .seconds(30), "nothing waited for the 60 s timeout")
        try DaemonTraffic.eventually("the plugin is running again after one restart") {
            let worker = try client.request("status")["plugins"]?["worker"]
            return worker?["state"] == "running" && worker?["restarts"] == 1
        }
        try DaemonTraffic.eventually("the last stderr lines are logged") {
            daemon.standardError.contains("about to crash on purpose")
        }
        #expect(try client.request(PluginFixtures.emit(["type": "job", "do": "events"])).isAck)
        try DaemonTraffic.eventually("the restarted plugin handles effects") {
            try seenTypes(client).contains("fromPlugin")
        }
        try daemon.terminate()
    }

    @Test func timeoutCancelsAndProgressExtends() throws {
        let scratch = DaemonScratch()
        let cancels = scratch.file("cancels")
        let worker = PluginFixtures.behave(
            options: ["cancelFile": .string(cancels), "progressFor": 1.5],
            ["onError": ["type": "effectFailed"], "timeout": 0.6])
        let (daemon, client) = try start(worker: worker)
        #expect(try client.request(PluginFixtures.emit(["type": "job", "do": "hang"])).isAck)
        #expect(try client.request(PluginFixtures.emit(["type": "job", "do": "progress"])).isAck)
        try DaemonTraffic.eventually("the hanging effect times out") {
            try seen(client).contains { $0["type"] == "effectFailed" && $0["error"]?["code"] == "Timeout" }
        }
        try DaemonTraffic.eventually("the effect that reports progress outlives its 0.6 s timeout and succeeds") {
            try seenTypes(client).contains("progressed")
        }
        #expect(try seen(client).filter { $0["error"]?["code"] == "Timeout" }.count == 1)
        try DaemonTraffic.eventually("the plugin got a cancel for the timed-out effect") {
            !scratch.read("cancels").isEmpty
        }
        let entry = try client.request("status")["plugins"]?["worker"]
        #expect(entry?["timedOut"] == 1 && entry?["state"] == "running", "\(String(describing: entry))")
        try daemon.terminate()
    }

    @Test func unhandledKeyIsCountedNotFatal() throws {
        let (daemon, client) = try start(worker: PluginFixtures.behave())
        #expect(try client.request(PluginFixtures.emit(["type": "nobody.handles.this"])).isAck)
        #expect(try client.request(PluginFixtures.emit(["weird", "shape"])).isAck)
        try DaemonTraffic.eventually("both are counted as unhandled") {
            try client.request("status")["effects"]?["unhandled"] == 2
        }
        #expect(daemon.isRunning)
        try daemon.terminate()
    }

    @Test func unsolicitedFloodIsBoundedByBackpressure() throws {
        let worker = PluginFixtures.behave(options: ["count": 100_000])
        let (daemon, client) = try start(worker: worker, batch: true)
        #expect(try client.request(PluginFixtures.emit(["type": "job", "do": "flood"])).isAck)
        try DaemonTraffic.eventually("all 100,000 flood events are applied", timeout: .seconds(90)) {
            (try client.request("ping", timeout: .seconds(30)).seq ?? 0) >= 100_001
        }
        let rss = try daemon.residentBytes()
        #expect(Sanitizer.inflatesMemory || rss < 200 << 20, "resident size stayed bounded: \(rss) bytes")
        #expect(try client.request("status")["queues"]?["dropped"] == [:], "backpressure, not drops")
        try daemon.terminate()
    }

    @Test func effectsPastTheHostQueueWaitInsteadOfFailing() throws {
        let worker = PluginFixtures.behave(
            options: [:], ["concurrency": 1, "maxQueued": 2, "timeout": 60, "onError": ["type": "effectFailed"]])
        let (daemon, client) = try start(worker: worker)
        for _ in 0..<3 { #expect(try client.request(PluginFixtures.emit(["type": "job", "do": "hang"])).isAck) }
        // One in flight, two queued: the queue is full, so the next event waits in the socket, not refused.
        try client.send(PluginFixtures.emit(["type": "job", "do": "hang"]))
        #expect(throws: (any Error).self) { try client.readReply(timeout: .milliseconds(500)) }
        let entry = try daemon.connect().request("status")["plugins"]?["worker"]
        #expect(
            entry?["inFlight"] == 1 && entry?["queued"] == 2 && entry?["pushingBack"] == true && entry?["failed"] == 0,
            "\(String(describing: entry))")
        #expect(daemon.isRunning)
        try daemon.terminate()
    }
}
