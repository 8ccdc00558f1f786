import Foundation
import Glibc
import MobiusJSON
import MobiusSystem
import MobiusTestSupport
import Synchronization
import Testing

/// Durable state across restarts (docs/protocol.md 1.4 and 5): an acknowledged event survives SIGTERM and SIGKILL, seq
/// continues, the epoch stays, and damage is either cut off (a torn tail) or stops start-up naming where it is.
@Suite("Journal: recovery", .serialized, .timeLimit(.scaled(minutes: 3)))
struct JournalRecoveryTests {
    static let increment = #"{"type":"increment"}"#

    @Test func sigtermThenRestartKeepsModelSeqAndEpoch() throws {
        let sandbox = JournalSandbox()
        var daemon = try sandbox.start()
        var client = try daemon.connect()
        let epoch = try client.request("hello")["epoch"]
        #expect(try client.request("hello")["ephemeral"] == false)
        try DaemonTraffic.sendIncrements(5, on: client, batch: 1)
        client.close()
        try daemon.terminate()
        daemon = try sandbox.start()
        client = try daemon.connect()
        let hello = try client.request("hello")
        #expect(hello["epoch"] == epoch, "the epoch is kept in the state directory")
        #expect(hello.seq == 5)
        #expect(try client.request("model").model == 5)
        #expect(try client.request(Self.increment).seq == 6, "seq continues")
        try DaemonTraffic.eventually("the log says recovered seq 5") {
            daemon.standardError.contains("recovered seq 5")
        }
    }

    /// `batch` and `never` write each pass before its ack (only the fdatasync is deferred or skipped), so a crash of
    /// the daemon alone (not of the machine) loses nothing acknowledged: the page cache still has it.
    @Test(arguments: ["batch", "never"])
    func batchAndNeverWriteBeforeTheAck(fsync: String) throws {
        let sandbox = JournalSandbox()
        var daemon = try sandbox.start(state: #""fsync":"\#(fsync)""#)
        var client = try daemon.connect()
        try DaemonTraffic.sendIncrements(30, on: client, batch: 7)
        #expect(try client.request("status")["state"]?["fsync"] == .string(fsync))
        daemon.send(signal: SIGKILL)
        _ = try daemon.waitForExit()
        daemon = try sandbox.start(state: #""fsync":"\#(fsync)""#)
        client = try daemon.connect()
        #expect(try client.request("model").model == 30)
        #expect(try JournalSandbox.readLog(client).items.count == 30)
    }

    /// `always` on a kernel with AIO fsync: one-at-a-time passes are written on the reactor thread and synced by the
    /// kernel in the background, and still every acknowledged event survives SIGKILL. A big pipelined pass (over the
    /// background limit) goes the journal thread's way in the same run.
    @Test func backgroundSyncedPassesSurviveSIGKILL() throws {
        let sandbox = JournalSandbox()
        var daemon = try sandbox.start()
        var client = try daemon.connect()
        for expected in Int64(1)...25 {
            #expect(try client.request(#"{"type":"increment"}"#).seq == expected)
        }
        // 3,000 events in one write: passes of far more than 64 KiB of records go to the journal thread.
        try DaemonTraffic.sendIncrements(3000, on: client, batch: 3000)
        // Where this machine's kernel (or a seccomp filter) offers no AIO fsync, the daemon must say it fell back.
        let expected: JSONValue =
            JournalRecoveryTests.kernelSyncsInBackground() ? "kernel background" : "journal thread"
        #expect(try client.request("status")["state"]?["fdatasync"] == expected)
        daemon.send(signal: SIGKILL)
        _ = try daemon.waitForExit()
        daemon = try sandbox.start()
        client = try daemon.connect()
        #expect(try client.request("model").model == 3025)
        #expect(try JournalSandbox.readLog(client).items.count == 3025)
    }

    /// Whether this machine's kernel takes an AIO fdatasync, probed the way the daemon probes at start.
    static func kernelSyncsInBackground() -> Bool {
        guard let directory = try? TemporaryDirectory(prefix: "aio-probe") else { return false }
        defer { directory.remove() }
        return (try? AsyncDataSync(probing: directory.path)) != nil
    }

    @Test func aFreshStateDirectoryGetsANewEpoch() throws {
        let first = JournalSandbox()
        let second = JournalSandbox()
        let firstDaemon = try first.start()
        let secondDaemon = try second.start()
        let one = try firstDaemon.connect().request("hello")["epoch"]
        let two = try secondDaemon.connect().request("hello")["epoch"]
        #expect(one != nil && one != two)
        #expect(first.files().contains("epoch"))
    }

    /// 24 SIGKILLs at different points under load from three clients: every acknowledged event is in `log` after
    /// the restart, the model equals a recomputation from the logged events, seq continues, the epoch stays.
    /// Without compaction, so the log holds the whole history; with snapshots every 150 events, kills also land
    /// while snapshots are written and segments removed, and the log holds everything after the older snapshot.
    @Test(arguments: [false, true])
    func sigkillUnderLoadLosesNoAcknowledgedEvent(snapshots: Bool) throws {
        let sandbox = JournalSandbox()
        let state = #""segmentBytes":8192,"snapshotEvents":"# + (snapshots ? "150" : "1000000000")
        var epoch: JSONValue?
        var acked = Set<Int64>()
        for round in 0..<24 {
            let daemon = try sandbox.start(state: state)
            let hello = try daemon.connect().request("hello")
            if let epoch { #expect(hello["epoch"] == epoch, "round \(round)") } else { epoch = hello["epoch"] }
            acked.formUnion(try Self.loadThenKill(daemon, round: round))
        }
        let daemon = try sandbox.start(state: state)
        let client = try daemon.connect()
        let log = try JournalSandbox.readLog(client)
        let head = try #require(log.reply.seq)
        let from = try #require(log.reply["from"]?.int64Value)
        let logged = log.items.compactMap { $0["seq"]?.int64Value }
        #expect(logged == Array(from...head), "the log is every seq from \(from) to \(head), in order, no gap")
        let missing = acked.filter { $0 >= from && !logged.contains($0) } + acked.filter { $0 > head }
        #expect(missing.isEmpty, "acknowledged but lost: \(missing.sorted().prefix(10))")
        #expect(acked.count > 24, "the clients got acks in most rounds (\(acked.count))")
        #expect(log.items.allSatisfy { $0["event"] == ["type": "increment"] })
        if !snapshots { #expect(from == 1, "nothing compacted") }
        // Every event is an increment: recomputing the model from the history gives its length.
        let model = try client.request("model")
        #expect(model.model == .number(JSONNumber(head)), "the model is the recomputation of the log")
        #expect(try client.request("hello")["epoch"] == epoch)
        #expect(try client.request(Self.increment).seq == head + 1, "seq continues")
    }

    /// Three clients send small pipelined batches until the daemon is SIGKILLed a few ms in (scaled under a
    /// sanitizer, where each pass takes longer); returns the acked seqs.
    static func loadThenKill(_ daemon: DaemonProcess, round: Int) throws -> [Int64] {
        let recorded = AckedSeqs()
        let group = DispatchGroup()
        for client in 0..<3 {
            group.enter()
            let socket = daemon.socketPath
            let size = 1 + (client + round) % 4
            DispatchQueue.global().async {
                defer { group.leave() }
                guard let connection = try? DaemonLineClient(path: socket) else { return }
                // Small pipelined batches, so kills land inside passes of several events.
                let batch = DaemonTraffic.increments(size)
                while true {
                    guard (try? connection.sendRaw(batch)) != nil else { return }
                    for _ in 0..<size {
                        guard let reply = try? connection.readReply(timeout: .seconds(5)), let seq = reply.seq,
                            reply.isAck
                        else { return }
                        recorded.seqs.withLock { $0.append(seq) }
                    }
                }
            }
        }
        try SystemClock.sleep(nanoseconds: TestTime.scaled(nanoseconds: UInt64(5 + (round * 7) % 60) * 1_000_000))
        daemon.send(signal: SIGKILL)
        _ = try daemon.waitForExit()
        group.wait()
        return recorded.seqs.withLock { $0 }
    }

    @Test func aTornTailIsCutOffWithAWarning() throws {
        let sandbox = JournalSandbox()
        var daemon = try sandbox.start()
        try DaemonTraffic.sendIncrements(3, on: try daemon.connect(), batch: 1)
        try daemon.terminate()
        let segment = try #require(sandbox.segments().last)
        // Where the records end: the segment header (16) and three records of 44 bytes. The file goes on with the
        // zeros the writer keeps ahead of its records.
        let size = Int64(16 + 3 * 44)
        #expect(try #require(try FileSystem.fileSize(segment)) > size, "zero-filled room after the records")
        // Half a record: a write that a crash cut short, into that room.
        let fd = try FileDescriptor.openFile(segment, .readWrite)
        try fd.writeAll([0x30, 0, 0, 0, 0xAB, 0xCD, 7, 0, 0, 0], at: size)
        fd.close()
        daemon = try sandbox.start()
        let client = try daemon.connect()
        #expect(try client.request("model").model == 3)
        #expect(try client.request(Self.increment).seq == 4)
        try DaemonTraffic.eventually("the log says the records end at byte \(size), and what was cut") {
            daemon.standardError.contains("\(segment) ends at byte \(size), followed by")
        }
        #expect(try FileSystem.fileSize(segment) == size, "cut back to the last whole record")
    }

    @Test("with fsync always the segment keeps zero-filled room ahead of its records; with never it does not")
    func zeroFilledRoomAheadOfTheRecords() throws {
        let sandbox = JournalSandbox()
        var daemon = try sandbox.start()
        try DaemonTraffic.sendIncrements(3, on: try daemon.connect(), batch: 1)
        let segment = try #require(sandbox.segments().last)
        // 256 KiB when the segment starts, then 4 MiB more from the journal thread after the first commit.
        try DaemonTraffic.eventually("4 MiB of room filled after the first 256 KiB") {
            (try FileSystem.fileSize(segment) ?? 0) == Int64(16 + (256 << 10) + (4 << 20))
        }
        try daemon.terminate()
        daemon = try sandbox.start()
        #expect(try daemon.connect().request("model").model == 3)
        try daemon.terminate()

        let never = JournalSandbox()
        daemon = try never.start(state: #""fsync":"never""#)
        try DaemonTraffic.sendIncrements(3, on: try daemon.connect(), batch: 1)
        try daemon.terminate()
        #expect(try FileSystem.fileSize(try #require(never.segments().last)) == Int64(16 + 3 * 44))
    }

    @Test func damageBeforeTheEndStopsStartUpNamingFileAndOffset() throws {
        let sandbox = JournalSandbox()
        let daemon = try sandbox.start()
        try DaemonTraffic.sendIncrements(3, on: try daemon.connect(), batch: 1)
        try daemon.terminate()
        let segment = try #require(sandbox.segments().last)
        // The second record's event bytes: header (16) + first record (24 + 20) + its header (24) + 5.
        let secondRecord = 16 + 44
        let size = try FileSystem.fileSize(segment)
        let fd = try FileDescriptor.openFile(segment, .readWrite)
        try fd.writeAll(Array("X".utf8), at: Int64(secondRecord + 24 + 5))
        fd.close()
        let run = try DaemonToolRun.run(
            DaemonSpawn.mobiusdPath,
            ["--socket", sandbox.socketPath, "--state-dir", sandbox.stateDirectory])
        #expect(run.exit == .exited(1), "\(run)")
        #expect(run.stderr.contains("\(segment) is damaged at byte \(secondRecord)"), "\(run.stderr)")
        #expect(run.stderr.contains("truncate -s \(secondRecord) \(segment)"), "\(run.stderr)")
        #expect(try FileSystem.fileSize(segment) == size, "nothing was cut")
    }

    @Test func snapshotsCompactTheJournalAndRestartFromThem() throws {
        let sandbox = JournalSandbox()
        var daemon = try sandbox.start(state: #""snapshotEvents":10,"segmentBytes":4096"#)
        var client = try daemon.connect()
        try DaemonTraffic.sendIncrements(400, on: client, batch: 5)
        // A snapshot is written, and the journal compacted behind it, on the journal thread while later passes are
        // acknowledged: the last one may still be at work after the last ack, and the events that came meanwhile
        // get one more when it ends. Nothing is sent meanwhile, so status and log settle on the same first kept seq.
        var state: JSONValue?
        var firstKept: Int64 = 0
        var log: (reply: DaemonReply, items: [JSONValue], end: DaemonReply)?
        try DaemonTraffic.eventually("a snapshot past seq 390, and status and log agree on the first kept seq") {
            state = try client.request("status")["state"]
            firstKept = state?["firstKeptSeq"]?.int64Value ?? 0
            log = try JournalSandbox.readLog(client)
            return (state?["snapshotSeq"]?.int64Value ?? 0) >= 390 && log?.reply["from"]?.int64Value == firstKept
        }
        let settled = try #require(log)
        #expect(firstKept > 1, "\(String(describing: state))")
        #expect(settled.reply["compacted"] == true, "\(settled.reply)")
        #expect(settled.items.first?["seq"]?.int64Value == firstKept)
        #expect(settled.end.seq == 400)
        // The files go after the catalog has let them go.
        try DaemonTraffic.eventually("two snapshots, and the journal compacted behind them") {
            let files = sandbox.files()
            return files.filter { $0.hasSuffix(".snapshot") }.count == 2
                && files.filter { $0.hasSuffix(".journal") }.count <= 4
        }
        try daemon.terminate()
        daemon = try sandbox.start(state: #""snapshotEvents":10,"segmentBytes":4096"#)
        client = try daemon.connect()
        #expect(try client.request("model").model == 400)
        #expect(try client.request(Self.increment).seq == 401)
        try DaemonTraffic.eventually("the log says from the snapshot at seq") {
            daemon.standardError.contains("from the snapshot at seq")
        }
    }

    @Test func aSecondDaemonOnTheSameStateDirectoryIsRefused() throws {
        let sandbox = JournalSandbox()
        let daemon = try sandbox.start()
        let run = try DaemonToolRun.run(
            DaemonSpawn.mobiusdPath,
            ["--socket", sandbox.scratch.file("other.sock"), "--state-dir", sandbox.stateDirectory])
        #expect(run.exit == .exited(1), "\(run)")
        #expect(run.stderr.contains("is in use by another mobiusd"), "\(run.stderr)")
        #expect(daemon.isRunning)
    }

    @Test func aStateDirectoryWritableByOthersIsRefused() throws {
        let sandbox = JournalSandbox()
        try FileSystem.makeDirectories(sandbox.stateDirectory, mode: 0o700)
        try FileSystem.setMode(sandbox.stateDirectory, 0o777)
        let run = try DaemonToolRun.run(
            DaemonSpawn.mobiusdPath, ["--socket", sandbox.socketPath, "--state-dir", sandbox.stateDirectory])
        #expect(run.exit == .exited(1), "\(run)")
        #expect(run.stderr.contains("is writable by group or others"), "\(run.stderr)")
    }
}

/// Seqs the load clients saw acknowledged, from several threads.
private final class AckedSeqs: Sendable {
    let seqs = Mutex<[Int64]>([])
}
