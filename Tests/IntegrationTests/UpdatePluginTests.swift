import MobiusJSON
import Testing

/// docs/protocol.md 2.5: the app's update as a plugin: `init`, `update` one at a time or `updateBatch` per pass, split
/// where a pass reads the model; rejections; a plugin that dies mid-event; one past its start limit.
@Suite(.serialized, .timeLimit(.scaled(minutes: 3)))
struct UpdatePluginTests {
    private func daemon(
        batch: Bool, options: [String: JSONValue] = [:], extra: [String: JSONValue] = [:]
    ) throws -> (DaemonProcess, DaemonLineClient) {
        let config = PluginFixtures.config(plugins: [:], batch: batch, updateOptions: options, updateExtra: extra)
        let daemon = try DaemonProcess.start(config: config)
        return (daemon, try daemon.connect())
    }

    @Test(arguments: [false, true])
    func eventsApplyInOrderAndRejectionsLeaveTheModel(batch: Bool) throws {
        let (daemon, client) = try daemon(batch: batch)
        let lines = [
            #"{"type":"add","n":2}"#, #"{"type":"reject"}"#, #"{"type":"add","n":5}"#, "model",
            #"{"type":"add","n":1}"#,
        ]
        try client.send(lines: lines)
        let first = try client.readReply()
        let rejected = try client.readReply()
        let third = try client.readReply()
        let model = try client.readReply()
        let fourth = try client.readReply()
        #expect(first.isAck && first.seq == 1, "\(first)")
        #expect(rejected.errorCode == "InvalidEvent" && rejected.errorMessage == "rejected by the update plugin")
        #expect(third.isAck && third.seq == 2, "a rejected event uses no seq: \(third)")
        #expect(model.model?["total"] == 7, "the read between events sees the model after them: \(model)")
        #expect(fourth.isAck && fourth.seq == 3)
        #expect(try client.request("model").model?["total"] == 8)
        try daemon.terminate()
    }

    /// A lying update plugin: a second answer to a request already answered is ignored (the event counts once, the
    /// plugin keeps running); an answer to a request the host never sent breaks the protocol, so the plugin is
    /// ended and restarted, and the event it keeps doing it on is rejected alone (`PluginCrashed`).
    @Test(arguments: [false, true])
    func answersTwiceOrAheadHaveTheirOutcome(batch: Bool) throws {
        let (daemon, client) = try daemon(batch: batch, extra: ["restart": PluginFixtures.quickRestart])
        #expect(try client.request(#"{"type":"add","n":2}"#).seq == 1)
        #expect(try client.request(#"{"type":"answerTwice"}"#).seq == 2)
        #expect(try client.request(#"{"type":"add","n":3}"#).seq == 3)
        #expect(try client.request("model").model?["total"] == 5, "the second answer changed nothing")
        var entry = try #require(try client.request("status")["plugins"]?["app"])
        #expect(entry["state"] == "running" && entry["restarts"] == 0, "\(entry)")

        let ahead = try client.request(#"{"type":"answerAhead"}"#, timeout: .seconds(30))
        #expect(ahead.errorCode == "PluginCrashed", "\(ahead)")
        #expect(try client.request(#"{"type":"add","n":4}"#, timeout: .seconds(30)).seq == 4)
        #expect(try client.request("model").model?["total"] == 9)
        entry = try #require(try client.request("status")["plugins"]?["app"])
        #expect((entry["restarts"]?.int64Value ?? 0) >= 1, "\(entry)")
        #expect(daemon.standardError.contains("which the host never sent"), "\(daemon.standardError)")
        try daemon.terminate()
    }

    /// A client's compact event goes to the plugin as the bytes it arrived as, any other as the daemon's encoding of
    /// it: either way the plugin gets the same JSON value, escapes, numbers and all.
    @Test(arguments: [false, true])
    func clientEventsReachThePluginAsTheSameValue(batch: Bool) throws {
        let (daemon, client) = try daemon(batch: batch)
        let compact = #"{"type":"note","text":"caf\u00e9 \"q\"\t","list":[1,{"a":null},true],"n":-3.25e2}"#
        let spaced = #"{ "type" : "note", "text": "caf\u00e9 \"q\"", "list": [ 2.50, {"b": [] } ], "n": 1E+2 }"#
        try client.send(lines: [compact, spaced, #"{"type":"add","n":1}"#])
        for seq in 1...3 { #expect(try client.readReply().seq == Int64(seq)) }
        let seen = try client.request("model").model?["seen"]?.arrayValue ?? []
        #expect(seen == [try JSONValue(parsing: compact), try JSONValue(parsing: spaced)], "\(seen)")
        try daemon.terminate()
    }

    /// The daemon keeps only the text of a compact event for an update plugin. A monitor's trace and `log` still
    /// show every event as its sender wrote it, compact or not.
    @Test(arguments: [false, true])
    func monitorAndLogSeeEventsSentAsText(batch: Bool) throws {
        let (daemon, client) = try daemon(batch: batch)
        let monitor = try daemon.connect()
        #expect(try monitor.request("monitor").ok == true)
        let events = [#"{"type":"note","text":"a\u0062"}"#, #"{ "type": "add", "n": 4 }"#, #"{"type":"add","n":1}"#]
        try client.send(lines: events)
        for seq in 1...3 { #expect(try client.readReply().seq == Int64(seq)) }
        let expected = try events.map { try JSONValue(parsing: $0) }
        try monitor.send("ping")
        var traced: [JSONValue] = []
        while true {
            let item = try monitor.readReply()
            if item.ok == true { break }
            if item["trace"] == "event", let event = item["event"] { traced.append(event) }
        }
        #expect(traced == expected, "\(traced)")
        let log = try daemon.connect()
        try log.send("log")
        #expect(try log.readReply().ok == true)
        let logged = try (1...3).map { _ in try log.readReply()["event"] }
        #expect(logged == expected, "\(logged)")
        #expect(try client.request("model").model?["total"] == 5)
        try daemon.terminate()
    }

    /// No request line goes past the plugin's `maxLineBytes`: a batch takes only the events that fit, and an event
    /// that does not fit even alone with the model is rejected with a message naming the limit, never sent.
    @Test(arguments: [false, true])
    func requestsStayWithinThePluginsLineLimit(batch: Bool) throws {
        let scratch = DaemonScratch()
        let lengths = scratch.file("lengths")
        let (daemon, client) = try daemon(
            batch: batch, options: ["lineLengths": .string(lengths)], extra: ["maxLineBytes": 1024])
        let padded = { (bytes: Int) in #"{"type":"add","n":1,"pad":"\#(String(repeating: "x", count: bytes))"}"# }
        let lines = Array(repeating: padded(300), count: 6) + [padded(1100), #"{"type":"add","n":1}"#]
        try client.send(lines: lines)
        var replies: [DaemonReply] = []
        for _ in lines { replies.append(try client.readReply()) }
        #expect(replies.prefix(6).map(\.seq) == [1, 2, 3, 4, 5, 6], "\(replies)")
        #expect(replies[6].errorCode == "InvalidEvent", "\(replies[6])")
        #expect(replies[6].errorMessage?.contains("maxLineBytes 1024") == true, "\(replies[6])")
        #expect(replies[7].seq == 7, "\(replies[7])")
        #expect(try client.request("model").model?["total"] == 7)
        let sent = scratch.read("lengths").split(separator: "\n").compactMap { Int($0) }
        #expect(sent.count >= (batch ? 3 : 7) && sent.allSatisfy { $0 <= 1024 }, "request line lengths: \(sent)")
        try daemon.terminate()
    }

    /// A model grown near the plugin's `maxLineBytes` leaves room only for small events: a bigger one is rejected
    /// without being sent (and without the model being encoded again for it), a small one still goes through.
    @Test func aModelNearTheLineLimitRejectsEventsThatCannotGoWithIt() throws {
        let scratch = DaemonScratch()
        let lengths = scratch.file("lengths")
        let (daemon, client) = try daemon(
            batch: true, options: ["lineLengths": .string(lengths)], extra: ["maxLineBytes": 1024])
        let note = #"{"type":"note","pad":"\#(String(repeating: "x", count: 230))"}"#
        for seq in 1...3 { #expect(try client.request(note).seq == Int64(seq)) }
        let refused = try client.request(note)
        #expect(refused.errorCode == "InvalidEvent", "\(refused)")
        #expect(refused.errorMessage?.contains("maxLineBytes 1024") == true, "\(refused)")
        #expect(try client.request(#"{"type":"add","n":1}"#).seq == 4, "a small event still fits")
        let model = try client.request("model").model
        #expect(model?["total"] == 1 && model?["seen"]?.arrayValue?.count == 3, "\(String(describing: model))")
        let sent = scratch.read("lengths").split(separator: "\n").compactMap { Int($0) }
        #expect(sent.count == 4 && sent.allSatisfy { $0 <= 1024 }, "request line lengths: \(sent)")
        try daemon.terminate()
    }

    @Test func batchesAreOnePerSegmentAndBoundedByMaxBatch() throws {
        let scratch = DaemonScratch()
        let calls = scratch.file("calls")
        let (daemon, client) = try daemon(batch: true, options: ["calls": .string(calls)], extra: ["maxBatch": 2])
        let adds = Array(repeating: #"{"type":"add","n":1}"#, count: 5)
        try client.send(lines: adds + ["model"] + [#"{"type":"add","n":1}"#, "ping"])
        var replies: [DaemonReply] = []
        for _ in 0..<8 { replies.append(try client.readReply()) }
        #expect(replies[5].model?["total"] == 5, "\(replies[5])")
        #expect(replies[7].seq == 6)
        let methods = scratch.read("calls").split(separator: "\n").map(String.init)
        #expect(methods.allSatisfy { $0.hasPrefix("updateBatch ") }, "\(methods)")
        let sizes = methods.compactMap { Int($0.split(separator: " ").last ?? "") }
        #expect(sizes.reduce(0, +) == 6 && sizes.allSatisfy { $0 <= 2 }, "maxBatch 2: \(sizes)")
        try daemon.terminate()
    }

    @Test func pluginDyingMidEventIsRestartedAndTheEventRetried() throws {
        let scratch = DaemonScratch()
        let marker = scratch.file("died")
        let (daemon, client) = try daemon(
            batch: false, options: ["marker": .string(marker)], extra: ["restart": PluginFixtures.quickRestart])
        #expect(try client.request(#"{"type":"add","n":3}"#).isAck)
        let died = try client.request(#"{"type":"die"}"#, timeout: .seconds(20))
        #expect(died.isAck && died.seq == 2, "the same event is applied once after the restart: \(died)")
        #expect(try client.request(#"{"type":"add","n":4}"#).seq == 3)
        #expect(try client.request("model").model?["total"] == 7)
        let app = try client.request("status")["plugins"]?["app"]
        #expect(app?["restarts"] == 1 && app?["state"] == "running", "\(String(describing: app))")
        try daemon.terminate()
    }

    @Test func updatePluginPastItsStartLimitRejectsEventsClearly() throws {
        let scratch = DaemonScratch()
        let restart: JSONValue = ["initialDelay": 0.02, "maxDelay": 0.05, "burst": 1, "interval": 60]
        let (daemon, client) = try daemon(
            batch: false, options: ["marker": .string(scratch.file("died"))], extra: ["restart": restart])
        let died = try client.request(#"{"type":"die"}"#, timeout: .seconds(20))
        #expect(died.errorCode == "Unavailable", "\(died)")
        #expect(died.errorMessage?.contains("app") == true, "\(died)")
        let later = try client.request(#"{"type":"add","n":1}"#)
        #expect(later.errorCode == "Unavailable", "no hang: \(later)")
        #expect(try client.request("ping").seq == 0)
        try daemon.terminate()
    }

    @Test func pluginEventsReachTheUpdatePlugin() throws {
        let tick: JSONValue = ["exec": [.string(PluginFixtures.tick)]]
        let config = PluginFixtures.config(plugins: ["tick": tick], batch: true)
        let daemon = try DaemonProcess.start(config: config)
        let client = try daemon.connect()
        #expect(try client.request(PluginFixtures.emit(["type": "tick"])).isAck)
        try DaemonTraffic.eventually("the tick plugin's event reached the update plugin") {
            (try client.request("model").model?["seen"]?.arrayValue ?? []).contains { $0["type"] == "ticked" }
        }
        try daemon.terminate()
    }
}
