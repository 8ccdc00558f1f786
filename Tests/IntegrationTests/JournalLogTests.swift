import MobiusJSON
import MobiusSystem
import Testing

/// The `log` command (docs/protocol.md 1.2): every event in order, resumable by `since`, bounded by `limit`, streaming
/// with `follow`, served from the journal's files for readers behind what memory holds.
@Suite("Journal: log", .serialized, .timeLimit(.scaled(minutes: 2)))
struct JournalLogTests {
    static let increment = #"{"type":"increment"}"#

    @Test func logSinceAndLimitEndWithTheSeqToResumeFrom() throws {
        let sandbox = JournalSandbox()
        let daemon = try sandbox.start()
        let client = try daemon.connect()
        try DaemonTraffic.sendIncrements(10, on: client, batch: 3)
        let all = try JournalSandbox.readLog(client)
        #expect(all.reply.seq == 10 && all.reply["from"] == 1 && all.reply["compacted"] == nil, "\(all.reply)")
        #expect(all.items.map { $0["seq"] } == (1...10).map { .number(JSONNumber($0)) })
        #expect(all.items.allSatisfy { $0["time"]?.stringValue?.hasSuffix("Z") == true })
        #expect(all.end.seq == 10)
        let some = try JournalSandbox.readLog(client, argument: #"{"since":4,"limit":3}"#)
        #expect(some.reply["from"] == 5)
        #expect(some.items.map { $0["seq"] } == [5, 6, 7])
        #expect(some.end.seq == 7, "resume with since 7")
        let none = try JournalSandbox.readLog(client, argument: #"{"since":10}"#)
        #expect(none.items.isEmpty && none.end.seq == 10)
        let future = try JournalSandbox.readLog(client, argument: #"{"since":99}"#)
        #expect(future.reply["from"] == 100 && future.items.isEmpty)
    }

    /// Compact event lines are journaled as they came, spaced ones encoded again: either way `log` and a restart
    /// give back the events that were applied.
    @Test func eventsComeBackAsSentWhateverTheirSpacing() throws {
        let sandbox = JournalSandbox()
        let daemon = try sandbox.start(update: #"{"builtin":"store"}"#)
        let client = try daemon.connect()
        let lines = [
            #"{"type":"set","path":"/a b","value":"x \" y"}"#,
            #"{ "type" : "set", "path" : "/n", "value" : [1, 2.5, {"k": null}] }"#,
            #"send {"type":"set","path":"/e","value":"tab\there \u00e9"}"#,
            #"{"type":"set","path":"/u","value":"\\"}"#,
        ]
        for line in lines { #expect(try client.request(line).isAck, "\(line)") }
        let sent = try lines.map { line in
            try JSONValue(parsing: Array((line.hasPrefix("send ") ? String(line.dropFirst(5)) : line).utf8))
        }
        let model = try #require(try client.request("model")["model"])
        #expect(try JournalSandbox.readLog(client).items.map { $0["event"] } == sent)
        try daemon.terminate()
        let again = try sandbox.start(update: #"{"builtin":"store"}"#)
        let after = try again.connect()
        #expect(try after.request("model")["model"] == model, "replayed from the records")
        #expect(try JournalSandbox.readLog(after).items.map { $0["event"] } == sent)
        try again.terminate()
    }

    @Test func followStreamsNewEventsUntilTheLimit() throws {
        let sandbox = JournalSandbox()
        let daemon = try sandbox.start()
        let writer = try daemon.connect()
        try DaemonTraffic.sendIncrements(2, on: writer, batch: 1)
        let reader = try daemon.connect()
        let reply = try reader.request(#"log {"since":1,"follow":true,"limit":4}"#)
        #expect(reply.seq == 2 && reply["from"] == 2)
        #expect(try reader.readReply()["seq"] == 2)
        try DaemonTraffic.sendIncrements(5, on: writer, batch: 1)
        #expect(try (0..<3).map { _ in try reader.readReply()["seq"] } == [3, 4, 5])
        let end = try reader.readReply()
        #expect(end["end"] == true && end.seq == 5, "\(end)")
        // Replies to later requests on the connection still come.
        #expect(try reader.request("ping").seq == 7)
    }

    @Test func aReaderBehindMemoryReadsFromDiskUnderTheOutputBound() throws {
        let sandbox = JournalSandbox()
        // No records kept in memory: every item comes from the segment files, several of them.
        let daemon = try sandbox.start(state: #""logWindowBytes":0,"segmentBytes":16384"#)
        let client = try daemon.connect()
        try DaemonTraffic.sendIncrements(3000, on: client, batch: 100)
        let log = try JournalSandbox.readLog(client)
        #expect(log.items.count == 3000)
        #expect(log.items.map { $0["seq"]?.int64Value ?? 0 } == Array(1...3000))
        #expect(sandbox.segments().count > 5)
        let middle = try JournalSandbox.readLog(client, argument: #"{"since":1234,"limit":2}"#)
        #expect(middle.items.map { $0["seq"] } == [1235, 1236])
    }

    @Test func aRequestWhileAStreamRunsStreamsAfterIt() throws {
        let sandbox = JournalSandbox()
        let daemon = try sandbox.start()
        let client = try daemon.connect()
        try DaemonTraffic.sendIncrements(3, on: client, batch: 3)
        try client.send(lines: [#"log {"limit":2}"#, #"log {"since":2}"#])
        let lines = try (0..<7).map { _ in try client.readReply() }
        #expect(lines[0]["from"] == 1 && lines[1]["from"] == 3, "both replies first, in request order")
        #expect(lines[2...].map { $0["seq"] } == [1, 2, 2, 3, 3])
        #expect(lines[4]["end"] == true && lines[6]["end"] == true)
    }

    /// More `log` requests than a connection may queue streams for: the rest wait unread and go on as streams end,
    /// so every one is answered, in order, and none is lost.
    @Test func manyPipelinedLogRequestsAreAllServedInOrder() throws {
        let sandbox = JournalSandbox()
        let daemon = try sandbox.start()
        let client = try daemon.connect()
        try DaemonTraffic.sendIncrements(2, on: client, batch: 2)
        try client.send(lines: Array(repeating: #"log {"since":1}"#, count: 40) + ["ping"])
        var replies = 0
        var items = 0
        var ends = 0
        var pinged = false
        while !pinged || ends < 40 {
            let line = try client.readReply()
            if line["from"] == 2 {
                #expect(!pinged, "replies come in request order")
                replies += 1
            } else if line["end"] == true {
                ends += 1
            } else if line["seq"] == 2 && line.ok == nil {
                items += 1
            } else {
                #expect(line.ok == true && line.seq == 2 && replies == 40, "\(line)")
                pinged = true
            }
        }
        #expect(replies == 40 && items == 40 && ends == 40)
    }

    @Test func ephemeralKeepsABoundedWindowAndNothingOnDisk() throws {
        let sandbox = JournalSandbox()
        var daemon = try sandbox.start(state: #""logWindowBytes":4096"#, extra: ["--ephemeral"])
        var client = try daemon.connect()
        let hello = try client.request("hello")
        #expect(hello["ephemeral"] == true)
        #expect(try client.request("status")["state"]?["ephemeral"] == true)
        try DaemonTraffic.sendIncrements(500, on: client, batch: 10)
        let log = try JournalSandbox.readLog(client)
        #expect(log.reply["compacted"] == true, "\(log.reply)")
        let from = try #require(log.reply["from"]?.int64Value)
        #expect(from > 1 && log.items.count == Int(500 - from + 1))
        #expect(log.end.seq == 500)
        try daemon.terminate()
        #expect(!FileSystem.exists(sandbox.stateDirectory), "nothing on disk")
        daemon = try sandbox.start(extra: ["--ephemeral"])
        client = try daemon.connect()
        let again = try client.request("hello")
        #expect(again.seq == 0 && again["epoch"] != hello["epoch"], "a new epoch each start")
    }
}
