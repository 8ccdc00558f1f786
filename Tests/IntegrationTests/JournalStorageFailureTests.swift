import Glibc
import MobiusJSON
import MobiusSystem
import MobiusTestSupport
import Testing

/// A journal that cannot be written (docs/protocol.md 1.3 `StorageFailure`): the pass is undone, reads go on, and
/// writing resumes in a new segment when it works again. The failure is real: the daemon runs under a file-size
/// limit (RLIMIT_FSIZE, through prlimit), so its write fails with EFBIG (it ignores SIGXFSZ).
@Suite("Journal: storage failure", .serialized, .timeLimit(.scaled(minutes: 2)))
struct JournalStorageFailureTests {
    @Test func aFailedWriteRejectsThePassAndANewSegmentRecovers() throws {
        guard DaemonSpawn.which("prlimit") != nil else { return }
        let sandbox = JournalSandbox()
        var daemon = try sandbox.start(launcher: JournalSandbox.fileSizeLimit(4096))
        var client = try daemon.connect()
        var acked: [Int64] = []
        var failure: DaemonReply?
        // Each record is 44 bytes: the first segment reaches the limit after about 90 events.
        for _ in 0..<200 {
            let reply = try client.request(#"{"type":"increment"}"#)
            if reply.isAck {
                acked.append(reply.seq!)
                if failure != nil { break }
            } else {
                #expect(failure == nil, "only one pass fails before the new segment: \(reply)")
                failure = reply
            }
        }
        let failed = try #require(failure, "no write failed")
        #expect(failed.errorCode == "StorageFailure", "\(failed)")
        #expect(failed.errorMessage?.contains("File too large") == true, "\(failed)")
        #expect(acked == Array(1...Int64(acked.count)), "the failed event took no seq")
        #expect(try client.request("model").model == .number(JSONNumber(acked.count)), "reads are served")
        let status = try client.request("status")
        #expect(status["state"]?["storageFailures"] == 1, "\(status)")
        // The log thread writes the line soon after the pass.
        try DaemonTraffic.eventually("the log says the journal moves on to a new segment") {
            daemon.standardError.contains("starts a new segment")
        }
        #expect(sandbox.segments().count == 2)
        // The limit leaves no room to zero-fill ahead (docs/durability.md): the records were appended instead.
        #expect(daemon.standardError.contains("no zero-filled room ahead"), "\(daemon.standardError)")
        client.close()
        try daemon.terminate()
        daemon = try sandbox.start()
        client = try daemon.connect()
        #expect(try client.request("model").model == .number(JSONNumber(acked.count)))
        let log = try JournalSandbox.readLog(client)
        #expect(log.items.compactMap { $0["seq"]?.int64Value } == acked)
    }

    /// Snapshots that cannot be written (the model outgrew the file-size limit, while journal segments stay under
    /// it): each failure is logged, events go on being acked, and the daemon does not retry in a loop while idle
    /// (a finished snapshot starts the next at once only after a success). A restart recovers the whole model.
    @Test func snapshotsThatCannotBeWrittenNeitherStopEventsNorLoop() throws {
        guard DaemonSpawn.which("prlimit") != nil else { return }
        let sandbox = JournalSandbox()
        let state = #""snapshotEvents":10,"segmentBytes":4096"#
        var daemon = try sandbox.start(
            state: state, update: #"{"builtin":"store"}"#, launcher: JournalSandbox.fileSizeLimit(8192))
        var client = try daemon.connect()
        let padding = String(repeating: "x", count: 100)
        for index in 1...150 {
            let reply = try client.request(#"{"type":"set","path":"/k\#(index)","value":"\#(padding)"}"#)
            #expect(reply.isAck && reply.seq == Int64(index), "\(reply)")
        }
        try DaemonTraffic.eventually("a failed snapshot is logged") {
            daemon.standardError.contains("cannot write the snapshot")
        }
        let idleBefore = try ProcessUsage.sample(processID: daemon.pid).voluntaryContextSwitches
        usleep(1_000_000)
        let idleAfter = try ProcessUsage.sample(processID: daemon.pid).voluntaryContextSwitches
        #expect(idleAfter - idleBefore < 20, "wake-ups over an idle second: \(idleAfter - idleBefore)")
        client.close()
        try daemon.terminate()
        daemon = try sandbox.start(state: state, update: #"{"builtin":"store"}"#)
        client = try daemon.connect()
        let model = try client.request("model").model
        #expect(model?["k150"]?.stringValue == padding && model?["k1"]?.stringValue == padding)
    }

    @Test func anUnwritableStateDirectoryFailsStartUpClearly() throws {
        let sandbox = JournalSandbox()
        let run = try DaemonToolRun.run(
            DaemonSpawn.mobiusdPath,
            ["--socket", sandbox.socketPath, "--state-dir", "/proc/mobiusd-cannot-be-here/state"])
        #expect(run.exit == .exited(1), "\(run)")
        #expect(run.stderr.contains("cannot create the state directory /proc/mobiusd-cannot-be-here/state"), "\(run)")
    }
}
