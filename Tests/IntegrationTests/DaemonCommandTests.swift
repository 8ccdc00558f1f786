import MobiusJSON
import Testing

/// docs/protocol.md 1.2/1.3: every command of the control socket against the real daemon.
@Suite(.serialized, .timeLimit(.scaled(minutes: 3)))
struct DaemonCommandTests {
    static let increment = #"{"type":"increment"}"#

    // MARK: - model

    @Test func modelReportsSeqAndModel() throws {
        let daemon = try DaemonProcess.start()
        let client = try daemon.connect()
        let fresh = try client.request("model")
        #expect(fresh.line == #"{"ok":true,"seq":0,"model":0}"#)
        _ = try client.request(Self.increment)
        _ = try client.request(Self.increment)
        let after = try client.request("model")
        #expect(after.line == #"{"ok":true,"seq":2,"model":2}"#)
    }

    @Test func modelWithPathReturnsTheValueOrNull() throws {
        let daemon = try DaemonProcess.start(
            config: #"{"update":{"builtin":"store"},"model":{"x":{"y":[10,20]},"a/b":5}}"#)
        let client = try daemon.connect()
        let whole = try client.request("model")
        #expect(whole.model == ["x": ["y": [10, 20]], "a/b": 5], "\(whole)")
        #expect(try client.request(#"model {"path":"/x/y/1"}"#).model == 20)
        #expect(try client.request(#"model {"path":"/a~1b"}"#).model == 5)
        let absent = try client.request(#"model {"path":"/nope"}"#)
        #expect(absent.ok == true && absent.model == .null, "\(absent)")
        #expect(absent.value.objectValue?.keys.contains("model") == true, "model must be present (null): \(absent)")
        let root = try client.request(#"model {"path":""}"#)
        #expect(root.model == whole.model, "\(root)")
        let empty = try client.request("model {}")
        #expect(empty.model == whole.model, "\(empty)")
    }

    // MARK: - subscribe

    @Test func subscribeSendsTheCurrentModelThenUpdatesFromOtherConnections() throws {
        let daemon = try DaemonProcess.start()
        let writer = try daemon.connect()
        _ = try writer.request(Self.increment)
        let hello = try writer.request("hello")
        let subscriber = try daemon.connect()
        let first = try subscriber.request("subscribe")
        #expect(first.ok == true, "\(first)")
        #expect(first.seq == 1 && first.model == 1, "\(first)")
        #expect(first["epoch"]?.stringValue != nil, "\(first)")
        #expect(first["epoch"] == hello["epoch"], "subscribe and hello must name the same epoch")

        _ = try writer.request(Self.increment)
        let item = try subscriber.readReply()
        #expect(item.ok == nil, "stream items carry no ok: \(item)")
        #expect(item.line == #"{"seq":2,"model":2}"#)
        _ = try writer.request(Self.increment)
        #expect(try subscriber.readReply().line == #"{"seq":3,"model":3}"#)
    }

    /// A subscriber's own event: its ack (written as soon as its pass is done) comes before the model line it caused.
    /// Two events and a `ping` in one pass: every reply of the pass, then one model line (the newest).
    @Test func aSubscribersOwnEventIsAckedBeforeItsModelLine() throws {
        let daemon = try DaemonProcess.start()
        let client = try daemon.connect()
        #expect(try client.request("subscribe").model == 0)
        try client.send(Self.increment)
        let one = try (1...2).map { _ in try client.readReply().line }
        #expect(one == [#"{"ok":true,"seq":1}"#, #"{"seq":1,"model":1}"#], "\(one)")
        try client.send(lines: [Self.increment, Self.increment, "ping"])
        let two = try (1...4).map { _ in try client.readReply().line }
        #expect(
            two == [
                #"{"ok":true,"seq":2}"#, #"{"ok":true,"seq":3}"#, #"{"ok":true,"seq":3}"#, #"{"seq":3,"model":3}"#,
            ],
            "\(two)")
    }

    @Test func subscribeWithPathSendsOnlyChangesOfThatValue() throws {
        let daemon = try DaemonProcess.start(config: #"{"update":{"builtin":"store"},"model":{"x":1}}"#)
        let subscriber = try daemon.connect()
        let first = try subscriber.request(#"subscribe {"path":"/x"}"#)
        #expect(first.ok == true && first.seq == 0 && first.model == 1, "\(first)")
        let writer = try daemon.connect()
        _ = try writer.request(#"{"type":"set","path":"/x","value":2}"#)
        let changed = try subscriber.readReply()
        #expect(changed.line == #"{"seq":1,"model":2}"#)
        // A change elsewhere leaves /x alone: no item for seq 2; the ping reply comes next.
        _ = try writer.request(#"{"type":"set","path":"/y","value":3}"#)
        let barrier = try subscriber.request("ping")
        #expect(barrier.ok == true && barrier.seq == 2, "expected only the ping reply, got \(barrier)")
        _ = try writer.request(#"{"type":"delete","path":"/x"}"#)
        #expect(try subscriber.readReply().line == #"{"seq":3,"model":null}"#, "a deleted value reads as null")
    }

    @Test func subscriberIsLatestWins() throws {
        let daemon = try DaemonProcess.start()
        let subscriber = try daemon.connect()
        #expect(try subscriber.request("subscribe").seq == 0)
        // The subscriber reads nothing while 30,000 events are applied.
        let writer = try daemon.connect()
        let total = 30_000
        try DaemonTraffic.sendIncrements(total, on: writer, batch: 1000)
        var items: [DaemonReply] = []
        while items.last?.seq != Int64(total) {
            items.append(try subscriber.readReply())
        }
        let seqs = items.compactMap(\.seq)
        #expect(seqs.count == items.count, "every stream item has a seq")
        #expect(seqs == seqs.sorted() && Set(seqs).count == seqs.count, "seqs must strictly increase")
        #expect(items.allSatisfy { $0.model?.int64Value == $0.seq }, "each item's model matches its seq")
        #expect(items.count < total, "a slow subscriber skips intermediate models (got \(items.count) items)")
        let status = try writer.request("status")
        #expect(status["subscribers"] == 1, "\(status)")
    }

    // MARK: - monitor

    @Test func monitorTracesEventsModelsAndEffects() throws {
        let daemon = try DaemonProcess.start()
        let monitor = try daemon.connect()
        let ack = try monitor.request("monitor")
        #expect(ack.ok == true, "\(ack)")
        let writer = try daemon.connect()
        // Decrement at 0: an event with an effect (mobiusd.log) and no model change; then an increment.
        #expect(try writer.request(#"{"type":"decrement"}"#).seq == 1)
        #expect(try writer.request(Self.increment).seq == 2)
        // A ping on the monitor connection is answered after every trace of the earlier passes.
        try monitor.send("ping")
        var traces: [DaemonReply] = []
        while true {
            let item = try monitor.readReply()
            if item.ok == true { break }
            traces.append(item)
        }
        #expect(traces.allSatisfy { $0.ok == nil }, "trace items carry no ok: \(traces)")
        let events = traces.filter { $0["trace"] == "event" }
        #expect(events.map(\.seq) == [1, 2], "\(traces)")
        #expect(events.first?["event"] == ["type": "decrement"], "\(traces)")
        #expect(events.last?["event"] == ["type": "increment"], "\(traces)")
        let effects = traces.filter { $0["trace"] == "effect" }
        #expect(effects.count == 1, "\(traces)")
        #expect(effects.first?["effect"] == ["type": "beep"], "\(traces)")
        let models = traces.filter { $0["trace"] == "model" }
        #expect(models.first?.seq == 2 && models.first?.model == 1, "\(traces)")
    }

    // MARK: - status, hello, ping, help, quit

    @Test func statusHasTheRequiredFields() throws {
        let daemon = try DaemonProcess.start()
        let client = try daemon.connect()
        let subscriber = try daemon.connect()
        _ = try subscriber.request("subscribe")
        _ = try client.request(Self.increment)
        _ = try client.request("[1]")
        let status = try client.request("status")
        #expect(status.ok == true, "\(status)")
        #expect(status["app"] == "counter", "\(status)")
        #expect(status.seq == 1, "\(status)")
        #expect(status["epoch"]?.stringValue?.isEmpty == false, "\(status)")
        #expect((status["uptime"]?.doubleValue ?? -1) >= 0, "\(status)")
        #expect(status["connections"] == 2, "\(status)")
        #expect(status["subscribers"] == 1, "\(status)")
        #expect(status["events"]?["accepted"] == 1, "\(status)")
        #expect(status["events"]?["rejected"] == 1, "\(status)")
        #expect(status["plugins"]?.objectValue != nil, "\(status)")
        #expect(status["dbus"]?.objectValue != nil, "\(status)")
        let rss = status["rssBytes"]?.int64Value ?? 0
        let measured = try daemon.residentBytes()
        #expect(rss > 1_000_000 && rss < 4 * Int64(measured), "rssBytes \(rss), VmRSS \(measured)")
        withExtendedLifetime(subscriber) {}
    }

    @Test func statusSeesOnlyEarlierRequestsOfItsConnection() throws {
        let daemon = try DaemonProcess.start()
        let client = try daemon.connect()
        // Requests take effect in order (docs/protocol.md 1.4): rejections sent after `status` are not in it.
        try client.send(lines: ["[1]", "status"] + Array(repeating: "[2]", count: 1000) + ["status"])
        #expect(try client.readReply().errorCode == "InvalidEvent")
        let status = try client.readReply()
        #expect(status["events"]?["rejected"] == 1, "the first status counted later lines: \(status)")
        for _ in 0..<1000 { _ = try client.readReply() }
        let final = try client.readReply()
        #expect(final["events"]?["rejected"] == 1001, "\(final)")
    }

    @Test func statusCountsAnotherConnectionGoingAway() throws {
        let daemon = try DaemonProcess.start()
        let client = try daemon.connect()
        let other = try daemon.connect()
        _ = try other.request("subscribe")
        #expect(try client.request("status")["subscribers"] == 1)
        other.close()
        try DaemonTraffic.eventually("subscribers and connections drop to 1 after a close") {
            let status = try client.request("status")
            return status["subscribers"] == 0 && status["connections"] == 1
        }
    }

    @Test func helloNamesProtocolDaemonAppEpochAndSeq() throws {
        let daemon = try DaemonProcess.start()
        let client = try daemon.connect()
        _ = try client.request(Self.increment)
        let hello = try client.request("hello")
        #expect(hello.ok == true, "\(hello)")
        #expect(hello["protocol"] == 1, "\(hello)")
        #expect(hello["daemon"] == "mobiusd", "\(hello)")
        #expect(hello["version"]?.stringValue?.isEmpty == false, "\(hello)")
        #expect(hello["app"] == "counter", "\(hello)")
        #expect(hello["epoch"]?.stringValue?.isEmpty == false, "\(hello)")
        #expect(hello.seq == 1, "\(hello)")
        // One daemon, one history: every connection sees the same epoch.
        #expect(try daemon.connect().request("hello")["epoch"] == hello["epoch"])
    }

    @Test func helloUsesTheConfiguredAppName() throws {
        let daemon = try DaemonProcess.start(config: #"{"app":"tally","update":{"builtin":"counter"}}"#)
        let hello = try daemon.connect().request("hello")
        #expect(hello["app"] == "tally", "\(hello)")
        #expect(daemon.standardOutput.contains("\"tally\""), "banner: \(daemon.standardOutput)")
    }

    @Test func pingIsABarrierForPipelinedEvents() throws {
        let daemon = try DaemonProcess.start()
        let client = try daemon.connect()
        let count = 2000
        try client.send(lines: Array(repeating: Self.increment, count: count) + ["ping"])
        for expected in 1...count {
            let ack = try client.readReply()
            guard ack.isAck && ack.seq == Int64(expected) else {
                Issue.record("ack \(expected): \(ack)")
                return
            }
        }
        let ping = try client.readReply()
        #expect(ping.line == #"{"ok":true,"seq":2000}"#)
    }

    @Test func helpListsEveryCommand() throws {
        let daemon = try DaemonProcess.start()
        let help = try daemon.connect().request("help")
        #expect(help.ok == true, "\(help)")
        let names = Set(help["commands"]?.arrayValue?.compactMap(\.stringValue) ?? [])
        let expected: Set<String> = [
            "send", "model", "subscribe", "log", "monitor", "status", "hello", "reply", "ping", "help", "quit",
            "metrics",
        ]
        #expect(expected.isSubset(of: names), "missing: \(expected.subtracting(names))")
    }

    @Test func quitRepliesThenCloses() throws {
        let daemon = try DaemonProcess.start()
        let client = try daemon.connect()
        // The increment after quit must not be read.
        try client.send(lines: [Self.increment, "quit", Self.increment])
        let rest = try client.readUntilEndOfFile()
        #expect(rest == [#"{"ok":true,"seq":1}"#, #"{"ok":true}"#])
        #expect(try daemon.connect().request("model").model == 1)
    }

    @Test func quitClosesASubscriberToo() throws {
        let daemon = try DaemonProcess.start()
        let client = try daemon.connect()
        #expect(try client.request("subscribe").ok == true)
        try client.send("quit")
        let rest = try client.readUntilEndOfFile()
        #expect(rest == [#"{"ok":true}"#])
    }

    // MARK: - reply modes

    @Test func replyErrorsDropsAcksButKeepsErrors() throws {
        let daemon = try DaemonProcess.start()
        let client = try daemon.connect()
        let set = try client.request("reply errors")
        #expect(set.ok == true, "\(set)")
        try client.send(lines: [Self.increment, Self.increment, "{bad", "[1]", "ping"])
        let invalid = try client.readReply()
        #expect(invalid.errorCode == "InvalidJSON" && invalid.lineNumber == 4, "\(invalid)")
        let rejected = try client.readReply()
        #expect(rejected.errorCode == "InvalidEvent" && rejected.lineNumber == 5, "\(rejected)")
        #expect(try client.readReply().line == #"{"ok":true,"seq":2}"#)
        // Back to acks.
        #expect(try client.request(#"reply "on""#).ok == true)
        #expect(try client.request(Self.increment).line == #"{"ok":true,"seq":3}"#)
    }

    @Test func replyOffDropsAcksAndErrorsButCountsRejections() throws {
        let daemon = try DaemonProcess.start()
        let client = try daemon.connect()
        #expect(try client.request(#"reply "off""#).ok == true)
        try client.sendRaw(
            Array((Self.increment + "\n{bad\n[1]\n{\"a\":1} x\nsend {bad\n").utf8) + [0x22, 0xFF, 0x22, 0x0A]
                + Array((Self.increment + "\nfrobnicate\nping\n").utf8))
        // Commands still get replies (`reply` was line 1): frobnicate's error, then ping.
        let unknown = try client.readReply()
        #expect(unknown.errorCode == "UnknownCommand" && unknown.lineNumber == 9, "\(unknown)")
        #expect(try client.readReply().line == #"{"ok":true,"seq":2}"#)
        let status = try client.request("status")
        #expect(status["events"]?["accepted"] == 2, "\(status)")
        #expect(status["events"]?["rejected"] == 5, "\(status)")
    }

    @Test func replyOffStillAnswersCommandsWithBadEncoding() throws {
        let daemon = try DaemonProcess.start()
        let client = try daemon.connect()
        #expect(try client.request("reply off").ok == true)
        // `model …` and `ping…` are commands, not attempted events: their errors are command replies, always sent.
        try client.sendRaw(
            Array("model ".utf8) + [0xFF, 0x0A] + Array("ping".utf8) + [0x00, 0x0A] + Array("hello\n".utf8))
        var replies: [DaemonReply] = []
        while replies.last?["protocol"] == nil { replies.append(try client.readReply()) }
        #expect(replies.count == 3, "\(replies)")
        #expect(replies.first?.errorCode == "InvalidEncoding" && replies.first?.lineNumber == 2, "\(replies)")
        #expect(replies.dropFirst().first?.errorCode == "InvalidEncoding", "\(replies)")
        let status = try client.request("status")
        #expect(status["events"]?["rejected"] == 0, "command lines are not rejected events: \(status)")
    }

    // MARK: - log

    /// `--ephemeral` with `state.logWindowBytes` 0 keeps no history at all: `log` is off.
    @Test func logIsUnavailableWhenNoHistoryIsKept() throws {
        let daemon = try DaemonProcess.start(
            config: #"{"update":{"builtin":"counter"},"state":{"logWindowBytes":0}}"#, extraArguments: ["--ephemeral"])
        let client = try daemon.connect()
        let reply = try client.request("log")
        #expect(reply.ok == false && reply.errorCode == "Unavailable" && reply.lineNumber == 1, "\(reply)")
        let withArgument = try client.request(#"log {"since":0,"follow":true}"#)
        #expect(withArgument.errorCode == "Unavailable" && withArgument.lineNumber == 2, "\(withArgument)")
        // The connection stays usable.
        #expect(try client.request("ping").ok == true)
    }
}
