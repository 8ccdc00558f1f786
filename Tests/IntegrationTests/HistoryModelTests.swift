import MobiusJSON
import MobiusSystem
import Testing

/// `model {"at":N}` and `log {"models":true}` against the real daemon (docs/durability.md, "The model at any seq"):
/// the model right after any kept seq, replayed from the newest snapshot at or before it, across restarts; errors
/// that say whether a seq is in the future, compacted away or behind damage; `state.keepSnapshots`.
@Suite("History: past models", .serialized, .timeLimit(.scaled(minutes: 3)))
struct HistoryModelTests {
    /// The store event of seq `seq`: `/k<seq % 7>` set to `seq`.
    static func event(_ seq: Int) -> String {
        #"{"type":"set","path":"/k\#(seq % 7)","value":\#(seq)}"#
    }

    /// The store's model right after seq `seq` of `event`s.
    static func model(after seq: Int) -> JSONValue {
        var members: [String: JSONValue] = [:]
        for key in 0..<7 {
            // The newest seq at or before `seq` that set this key.
            let last = seq - ((seq - key) % 7 + 7) % 7
            if last >= 1 { members["k\(key)"] = .number(JSONNumber(last)) }
        }
        return .object(JSONObject(members.sorted { $0.key < $1.key }.map { ($0.key, $0.value) }))
    }

    /// Sends the events of seqs `from...through` in batches of `batch` (passes of various sizes).
    static func send(_ seqs: ClosedRange<Int>, on client: DaemonLineClient, batch: Int = 7) throws {
        var seq = seqs.lowerBound
        while seq <= seqs.upperBound {
            let last = min(seqs.upperBound, seq + batch - 1)
            try client.send(lines: (seq...last).map(event))
            for expected in seq...last {
                let reply = try client.readReply()
                guard reply.seq == Int64(expected) else { throw DaemonTestError("seq \(expected): \(reply)") }
            }
            seq = last + 1
        }
    }

    /// The model compared as a set of members: the store keeps members in the order they were first set.
    static func members(_ value: JSONValue?) -> [String: JSONValue] {
        var members: [String: JSONValue] = [:]
        for (key, member) in value?.objectValue?.members ?? [] { members[key] = member }
        return members
    }

    /// The seqs of the snapshots on disk, oldest first.
    static func snapshots(_ sandbox: JournalSandbox) -> [Int64] {
        sandbox.files().compactMap { $0.hasSuffix(".snapshot") ? Int64($0.prefix(20)) : nil }.sorted()
    }

    /// The snapshots once none is due or being written (the newest on disk is within `every` events of the head)
    /// and compaction has left `kept` of them. Increments make passes meanwhile, since only a pass takes a snapshot
    /// that is due: without this wait a snapshot finished later would move the oldest one away mid-test.
    static func settledSnapshots(
        _ sandbox: JournalSandbox, on client: DaemonLineClient, every: Int64, kept: Int
    ) throws -> [Int64] {
        var seqs: [Int64] = []
        try DaemonTraffic.eventually("the snapshots settle") {
            let head = try client.request("ping").seq ?? 0
            seqs = snapshots(sandbox)
            if let newest = seqs.last, head - newest < every, seqs.count == kept { return true }
            _ = try client.request(#"{"type":"increment"}"#)
            return false
        }
        return seqs
    }

    static let store = #"{"builtin":"store"}"#
    static let snapshotsEvery25 = #""snapshotEvents":25,"keepSnapshots":50,"segmentBytes":4096"#

    @Test func theModelAtEverySeqIsTheModelThenAcrossSnapshotsAndRestarts() throws {
        let sandbox = JournalSandbox()
        var daemon = try sandbox.start(state: Self.snapshotsEvery25, update: Self.store)
        var client = try daemon.connect()
        try Self.send(1...300, on: client)
        #expect(try client.request(Self.event(301)).seq == 301, "one more pass takes the last snapshot")
        try DaemonTraffic.eventually("snapshots on disk") {
            sandbox.files().filter { $0.hasSuffix(".snapshot") }.count >= 8
        }
        let seqs = [0, 1, 2, 24, 25, 26, 49, 50, 51, 99, 137, 250, 299, 300, 301]
        for seq in seqs {
            let reply = try client.request(#"model {"at":\#(seq)}"#)
            #expect(reply.ok == true && reply.seq == Int64(seq), "\(reply)")
            #expect(Self.members(reply.model) == Self.members(Self.model(after: seq)), "seq \(seq): \(reply)")
        }
        let path = try client.request(#"model {"at":137,"path":"/k3"}"#)
        #expect(path.seq == 137 && path.model == .number(JSONNumber(136)), "\(path)")
        let absent = try client.request(#"model {"path":"/k5","at":4}"#)
        #expect(absent.seq == 4 && absent.model == .null, "a value not yet set: \(absent)")

        try daemon.terminate()
        daemon = try sandbox.start(state: Self.snapshotsEvery25, update: Self.store)
        client = try daemon.connect()
        for seq in seqs {
            let reply = try client.request(#"model {"at":\#(seq)}"#)
            #expect(Self.members(reply.model) == Self.members(Self.model(after: seq)), "after restart, seq \(seq)")
        }
        let history = try client.request("status")["history"]
        #expect(history?["pending"] == 0 && history?["running"] == .null, "\(String(describing: history))")
        try daemon.terminate()
    }

    /// A connection's lines after `model {"at":N}` wait for its answer, so replies and events keep their order.
    @Test func laterLinesWaitForTheAnswer() throws {
        let sandbox = JournalSandbox()
        let daemon = try sandbox.start(update: Self.store)
        let client = try daemon.connect()
        try Self.send(1...20, on: client)
        try client.send(lines: [#"model {"at":3}"#, Self.event(21), #"model {"at":21}"#, "ping"])
        let first = try client.readReply()
        #expect(first.seq == 3 && Self.members(first.model) == Self.members(Self.model(after: 3)), "\(first)")
        #expect(try client.readReply().seq == 21, "the event after it, acknowledged after its answer")
        let head = try client.readReply()
        #expect(head.seq == 21 && Self.members(head.model) == Self.members(Self.model(after: 21)), "\(head)")
        #expect(try client.readReply().seq == 21, "ping")
        try daemon.terminate()
    }

    @Test func aSeqInTheFutureSaysSoWithTheHead() throws {
        let sandbox = JournalSandbox()
        let daemon = try sandbox.start()
        let client = try daemon.connect()
        try DaemonTraffic.sendIncrements(5, on: client, batch: 5)
        let reply = try client.request(#"model {"at":6}"#)
        #expect(reply.errorCode == "InvalidArgument", "\(reply)")
        #expect(reply.errorMessage == "seq 6 is in the future: the last applied seq is 5", "\(reply)")
        #expect(reply.value["error"]?["head"] == 5, "\(reply)")
        #expect(try client.request(#"model {"at":5}"#).model == 5, "the head is answered from the loop's model")
        try daemon.terminate()
    }

    /// With the default two snapshots, compaction lets the history before the older one go; `keepSnapshots` keeps
    /// more of them, and the journal after the oldest.
    @Test func aCompactedSeqSaysWhereTheKeptHistoryStarts() throws {
        let compacting = #""snapshotEvents":50,"segmentBytes":4096"#
        let sandbox = JournalSandbox()
        let daemon = try sandbox.start(state: compacting)
        let client = try daemon.connect()
        try DaemonTraffic.sendIncrements(600, on: client, batch: 10)
        let oldest = try #require(try Self.settledSnapshots(sandbox, on: client, every: 50, kept: 2).first)
        #expect(!sandbox.segments().contains { $0.hasSuffix(JournalSandbox.segmentName(1)) }, "compacted past seq 1")
        let reply = try client.request(#"model {"at":1}"#)
        #expect(reply.errorCode == "Unavailable", "\(reply)")
        #expect(reply.value["error"]?["compacted"] == true, "\(reply)")
        #expect(reply.value["error"]?["firstSeq"]?.int64Value == oldest, "\(reply)")
        #expect(reply.errorMessage?.contains("no longer kept") == true, "\(reply)")
        #expect(try client.request(#"model {"at":\#(oldest)}"#).model == .number(JSONNumber(oldest)))
        #expect(try client.request(#"model {"at":\#(oldest + 7)}"#).model == .number(JSONNumber(oldest + 7)))
        try daemon.terminate()

        let keeping = JournalSandbox()
        let kept = try keeping.start(state: compacting + #","keepSnapshots":20"#)
        let keptClient = try kept.connect()
        try DaemonTraffic.sendIncrements(600, on: keptClient, batch: 10)
        #expect(try keptClient.request(#"model {"at":1}"#).model == 1, "no compaction before 20 snapshots")
        try DaemonTraffic.sendIncrements(600, on: keptClient, batch: 10)
        let oldestKept = try #require(try Self.settledSnapshots(keeping, on: keptClient, every: 50, kept: 20).first)
        #expect(oldestKept < 1200 - 50 * 15, "20 snapshots reach back about 20 intervals: \(oldestKept)")
        #expect(
            try keptClient.request(#"model {"at":\#(oldestKept + 1)}"#).model == .number(JSONNumber(oldestKept + 1)))
        #expect(try keptClient.request(#"model {"at":\#(oldestKept - 1)}"#).value["error"]?["compacted"] == true)
        try kept.terminate()
    }

    /// Damage in an older segment (JournalDamageTests' history, one event's byte flipped): a model whose replay would
    /// cross it says so and names the range; models before it, or from the newest snapshot on, are served.
    @Test func aReplayAcrossDamageSaysWhichSeqs() throws {
        let (sandbox, path, first, _) = try JournalDamageTests.compactedHistory()
        try JournalDamageTests.flipBits(0x20, in: path, at: JournalDamageTests.recordsEnd(2) + 24 + 5)
        let damaged = first + 2
        let snapshots = Self.snapshots(sandbox)
        let daemon = try sandbox.start(state: JournalDamageTests.compacting)
        let client = try daemon.connect()
        for seq in [damaged, damaged + 1, snapshots[1] - 1] {
            let reply = try client.request(#"model {"at":\#(seq)}"#)
            #expect(reply.errorCode == "JournalDamaged", "seq \(seq): \(reply)")
            #expect(reply.value["error"]?["damaged"]?["from"]?.int64Value == damaged, "\(reply)")
            #expect(reply.value["error"]?["damaged"]?["through"]?.int64Value == damaged, "\(reply)")
            #expect(reply.errorMessage?.contains("\(path) is damaged at byte") == true, "\(reply)")
        }
        for seq in [snapshots[0], damaged - 1, snapshots[1], snapshots[1] + 3, 1000] {
            #expect(try client.request(#"model {"at":\#(seq)}"#).model == .number(JSONNumber(seq)), "seq \(seq)")
        }
        try daemon.terminate()
    }

    @Test(arguments: [
        (#"model {"at":-1}"#, #""at" must be an integer ≥ 0"#),
        (#"model {"at":1.5}"#, #""at" must be an integer ≥ 0"#),
        (#"model {"at":"3"}"#, #""at" must be an integer ≥ 0"#),
        (#"model {"at":null}"#, #""at" must be an integer ≥ 0"#),
        (#"model {"at":9223372036854775808}"#, #""at" must be an integer ≥ 0"#),
        (#"model {"at":1,"since":2}"#, #"unknown key "since""#),
        (#"model {"at":1,"path":"a"}"#, "is not a JSON Pointer"),
        ("model [1]", "must be a JSON object"),
    ])
    func hostileArgumentsAreRefusedByName(line: String, message: String) throws {
        let daemon = try DaemonProcess.start()
        let client = try daemon.connect()
        let reply = try client.request(line)
        #expect(reply.errorCode == "InvalidArgument" && reply.errorMessage?.contains(message) == true, "\(reply)")
        #expect(try client.request(#"{"type":"increment"}"#).seq == 1, "the connection goes on")
        try daemon.terminate()
    }

    /// With `--ephemeral` only the head's model is served; an update plugin's app gets past models (through a
    /// process of the plugin of its own) but no models in `log` items.
    @Test func withoutSnapshotsOnlyTheHeadIsServedAndAnUpdatePluginsLogHasNoModels() throws {
        let ephemeral = try DaemonProcess.start(extraArguments: ["--ephemeral"])
        let client = try ephemeral.connect()
        try DaemonTraffic.sendIncrements(3, on: client, batch: 3)
        let past = try client.request(#"model {"at":2}"#)
        #expect(past.errorCode == "Unavailable" && past.errorMessage?.contains("--ephemeral") == true, "\(past)")
        #expect(try client.request(#"model {"at":3}"#).model == 3)
        let log = try client.request(#"log {"since":0,"models":true}"#)
        #expect(log["compacted"] == true && log["from"] == 4, "with --ephemeral models start at the head: \(log)")
        #expect(try client.readReply()["end"] == true)
        try ephemeral.terminate()

        let config = PluginFixtures.config(plugins: [:], batch: true)
        let plugin = try DaemonProcess.start(config: config)
        let pluginClient = try plugin.connect()
        #expect(try pluginClient.request(#"{"type":"add","n":2}"#).seq == 1)
        #expect(try pluginClient.request(#"{"type":"add","n":3}"#).seq == 2)
        let replayed = try pluginClient.request(#"model {"at":1}"#)
        #expect(replayed.model?["total"] == 2, "replayed through the plugin: \(replayed)")
        #expect(try pluginClient.request(#"model {"at":2}"#).model?["total"] == 5, "the head from the loop")
        let models = try pluginClient.request(#"log {"models":true}"#)
        #expect(models.errorCode == "Unavailable" && models.errorMessage?.contains("update is a plugin") == true)
        try plugin.terminate()
    }

    // MARK: - log {"models":true}

    /// Every item carries the model right after its event: replayed from disk behind the head (no window in
    /// memory), from the newest snapshot before `since`.
    @Test func logItemsCarryTheModelAfterTheirEvent() throws {
        let sandbox = JournalSandbox()
        let daemon = try sandbox.start(state: Self.snapshotsEvery25 + #","logWindowBytes":0"#, update: Self.store)
        let client = try daemon.connect()
        try Self.send(1...120, on: client)
        let all = try JournalSandbox.readLog(client, argument: #"{"since":0,"models":true}"#)
        #expect(all.reply["from"] == 1 && all.reply["compacted"] == nil, "\(all.reply)")
        #expect(all.items.count == 120 && all.end.seq == 120, "\(all.end)")
        for item in all.items {
            let seq = Int(item["seq"]?.int64Value ?? 0)
            #expect(Self.members(item["model"]) == Self.members(Self.model(after: seq)), "seq \(seq): \(item)")
        }
        let some = try JournalSandbox.readLog(client, argument: #"{"since":77,"models":true,"limit":3}"#)
        #expect(some.items.map { $0["seq"] } == [78, 79, 80])
        #expect(some.items.map { Self.members($0["model"]) } == (78...80).map { Self.members(Self.model(after: $0)) })
        let plain = try JournalSandbox.readLog(client, argument: #"{"since":118}"#)
        #expect(plain.items.allSatisfy { $0["model"] == nil }, "without models, no model: \(plain.items)")
        try daemon.terminate()
    }

    /// A stream that starts at the head takes the loop's own models, those of the events in the very pass that
    /// answered it too: with `--ephemeral` there is nothing to replay from, so without them the stream would end.
    @Test func aStreamAtTheHeadTakesTheLoopsOwnModels() throws {
        let daemon = try DaemonProcess.start(extraArguments: ["--ephemeral"])
        let client = try daemon.connect()
        try DaemonTraffic.sendIncrements(2, on: client, batch: 2)
        let increment = #"{"type":"increment"}"#
        try client.send(lines: [#"log {"since":2,"models":true,"follow":true,"limit":5}"#, increment, increment])
        let reply = try client.readReply()
        #expect(reply["from"] == 3 && reply["compacted"] == nil, "\(reply)")
        var items: [JSONValue] = []
        var acks = 0
        while items.count < 2 || acks < 2 {
            let line = try client.readReply()
            if line.isAck { acks += 1 } else { items.append(line.value) }
        }
        try DaemonTraffic.sendIncrements(3, on: try daemon.connect(), batch: 1)
        while items.count < 5 { items.append(try client.readReply().value) }
        #expect(items.map { $0["seq"] } == [3, 4, 5, 6, 7], "\(items)")
        #expect(items.map { $0["model"] } == [3, 4, 5, 6, 7], "\(items)")
        try daemon.terminate()
    }

    @Test func logWithModelsStartsAtTheOldestKeptSnapshot() throws {
        let sandbox = JournalSandbox()
        let daemon = try sandbox.start(state: #""snapshotEvents":50,"segmentBytes":4096"#)
        let client = try daemon.connect()
        try DaemonTraffic.sendIncrements(600, on: client, batch: 10)
        let oldest = try #require(try Self.settledSnapshots(sandbox, on: client, every: 50, kept: 2).first)
        let log = try JournalSandbox.readLog(client, argument: #"{"since":0,"models":true,"limit":2}"#)
        #expect(log.reply["compacted"] == true && log.reply["from"]?.int64Value == oldest + 1, "\(log.reply)")
        #expect(log.items.map { $0["model"]?.int64Value } == [oldest + 1, oldest + 2], "\(log.items)")
        let unknown = try client.request(#"log {"models":1}"#)
        #expect(
            unknown.errorCode == "InvalidArgument" && unknown.errorMessage == #"log: "models" must be true or false"#)
        try daemon.terminate()
    }

    @Test(arguments: [#"{"keepSnapshots":1}"#, #"{"keepSnapshots":"3"}"#, #"{"keepSnapshots":100001}"#])
    func keepSnapshotsOutOfRangeIsRefusedByName(state: String) throws {
        let scratch = DaemonScratch()
        let config = scratch.write("c.json", #"{"state":\#(state)}"#)
        let run = try DaemonToolRun.run(DaemonSpawn.mobiusdPath, ["--config", config, "--check"])
        #expect(run.exit == .exited(1), "\(run)")
        #expect(run.stderr.contains("state.keepSnapshots: must be an integer from 2 to 100000"), "\(run.stderr)")
    }

    /// An app whose update is a plugin: a past model is replayed through a process of the plugin of its own, in
    /// batches, from the newest snapshot (the running plugin is not asked); `log` with models stays `Unavailable`.
    @Test func anUpdatePluginsPastModelsGoThroughAProcessOfItsOwn() throws {
        let scratch = DaemonScratch()
        let calls = scratch.file("calls")
        let plain = try JSONValue(
            parsing: PluginFixtures.config(plugins: [:], batch: true, updateOptions: ["calls": .string(calls)]))
        var config = try #require(plain.objectValue)
        config["state"] = ["snapshotEvents": 10, "keepSnapshots": 10]
        let configPath = PluginFixtures.writeConfig(.object(config), in: scratch)
        let arguments = [
            "--config", configPath, "--socket", scratch.file("x.sock"), "--state-dir", scratch.file("state"),
        ]
        let daemon = try DaemonProcess(scratch: scratch, arguments: arguments, socketPath: scratch.file("x.sock"))
        let client = try daemon.connect()
        for n in 1...45 { #expect(try client.request(#"{"type":"add","n":\#(n)}"#).seq == Int64(n)) }
        #expect(try client.request(#"{"type":"reject"}"#).errorCode == "InvalidEvent", "rejected, not journaled")
        let liveCalls = scratch.read("calls").split(separator: "\n").count
        for seq in [1, 5, 17, 33, 44] {
            let reply = try client.request(#"model {"at":\#(seq),"path":"/total"}"#)
            #expect(reply.seq == Int64(seq) && reply.model == .number(JSONNumber(seq * (seq + 1) / 2)), "\(reply)")
        }
        let replayCalls = scratch.read("calls").split(separator: "\n").dropFirst(liveCalls)
        #expect(replayCalls.contains("updateBatch 5"), "seq 1 to 5 in one request from the start: \(replayCalls)")
        #expect(replayCalls.count == 5, "one request per replay, each from its snapshot: \(replayCalls)")
        #expect(try client.request(#"model {"at":45}"#).model?["total"] == 1035, "the head from the live model")
        let log = try client.request(#"log {"since":0,"models":true}"#)
        #expect(log.errorCode == "Unavailable" && log.errorMessage?.contains("model {\"at\":N}") == true, "\(log)")
        #expect(try client.request(#"{"type":"add","n":46}"#).seq == 46, "the live plugin goes on")
        try daemon.terminate()
    }

    /// A replay whose plugin process cannot start (the program now fails like a script with a syntax error) is
    /// answered `Unavailable` with the plugin's reason; the running plugin and the live loop go on.
    @Test func aReplayWhosePluginCannotStartSaysWhy() throws {
        let scratch = DaemonScratch()
        let wrapper = try PluginFixtures.breakablePlugin(
            in: scratch, named: "update.sh", stderr: "SyntaxError: invalid syntax")
        let restart: JSONValue = ["initialDelay": 0.1, "maxDelay": 0.1, "burst": 2, "interval": 60]
        let update: JSONValue = [
            "exec": [.string(wrapper)], "options": ["mode": "update", "batch": true], "restart": restart,
        ]
        let config: JSONValue = ["app": "plugintest", "update": ["plugin": "app"], "plugins": ["app": update]]
        let arguments = [
            "--config", PluginFixtures.writeConfig(config, in: scratch), "--socket", scratch.file("x.sock"),
            "--state-dir", scratch.file("state"),
        ]
        let daemon = try DaemonProcess(scratch: scratch, arguments: arguments, socketPath: scratch.file("x.sock"))
        let client = try daemon.connect()
        for n in 1...3 { #expect(try client.request(#"{"type":"add","n":\#(n)}"#).seq == Int64(n)) }
        _ = scratch.write("broken", "")
        let reply = try client.request(#"model {"at":2}"#, timeout: .seconds(30))
        #expect(reply.errorCode == "Unavailable", "\(reply)")
        #expect(reply.errorMessage?.contains("did not start") == true, "\(reply)")
        #expect(reply.errorMessage?.contains("SyntaxError") == true, "the plugin's own words: \(reply)")
        #expect(try client.request(#"{"type":"add","n":4}"#).seq == 4, "the running plugin goes on")
        #expect(try client.request("model").model?["total"] == 10)
        try daemon.terminate()
    }

    /// Clients that pile up `model {"at":N}` on an update plugin's app without reading: at most
    /// `maxPendingReplays` replays (each a plugin process of its own, one at a time) run or wait, the rest are
    /// answered `Overloaded`, and the live plugin keeps applying events meanwhile.
    @Test func pastModelRequestsPiledUpOnAnUpdatePluginAreBounded() throws {
        let scratch = DaemonScratch()
        let configPath = scratch.write("mobiusd.json", PluginFixtures.config(plugins: [:], batch: true))
        let arguments = [
            "--config", configPath, "--socket", scratch.file("x.sock"), "--state-dir", scratch.file("state"),
        ]
        let daemon = try DaemonProcess(scratch: scratch, arguments: arguments, socketPath: scratch.file("x.sock"))
        let client = try daemon.connect()
        for n in 1...3 { #expect(try client.request(#"{"type":"add","n":\#(n)}"#).seq == Int64(n)) }
        let askers = try (0..<8).map { _ in try daemon.connect() }
        for asker in askers { try asker.send(lines: Array(repeating: #"model {"at":1}"#, count: 5)) }
        #expect(try client.request(#"{"type":"add","n":4}"#, timeout: .seconds(30)).seq == 4, "the live plugin goes on")
        var served = 0
        var overloaded = 0
        for asker in askers {
            for _ in 0..<5 {
                let reply = try asker.readReply(timeout: .seconds(60))
                if reply.model?["total"] == 1 {
                    served += 1
                } else {
                    #expect(reply.errorCode == "Overloaded", "\(reply)")
                    overloaded += 1
                }
            }
        }
        #expect(
            served + overloaded == 40 && served >= 4 && overloaded >= 1, "served \(served), overloaded \(overloaded)")
        #expect(try client.request("model").model?["total"] == 10)
        try daemon.terminate()
    }
}
