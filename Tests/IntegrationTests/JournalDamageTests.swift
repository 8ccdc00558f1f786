import Glibc
import MobiusJSON
import MobiusSystem
import Testing

/// Damage to the state directory's files, made on the real files between two runs of the real daemon
/// (docs/durability.md, "Recovery"): a record that a valid record follows is never cut off; junk that no valid
/// record follows is the end of the log; damage behind the newest snapshot never stops start-up but is reported at
/// start-up, in `status` and by `log`, which serves what is intact after it.
@Suite("Journal: damage", .serialized, .timeLimit(.scaled(minutes: 3)))
struct JournalDamageTests {
    /// `{"type":"increment"}` as a record: a 24-byte header and 20 bytes of JSON.
    static let recordBytes = 44
    static let segmentHeader = 16

    /// 100 acknowledged increments in one segment, the daemon killed; the segment keeps its zero-filled room.
    static func hundredEvents() throws -> (JournalSandbox, segment: String) {
        let sandbox = JournalSandbox()
        let daemon = try sandbox.start()
        try DaemonTraffic.sendIncrements(100, on: try daemon.connect(), batch: 10)
        daemon.send(signal: SIGKILL)
        _ = try daemon.waitForExit()
        let segment = try #require(sandbox.segments().last)
        #expect(try #require(try FileSystem.fileSize(segment)) > Int64(recordsEnd(100)), "zero-filled room")
        return (sandbox, segment)
    }

    static func recordsEnd(_ count: Int) -> Int { segmentHeader + count * recordBytes }

    static func write(_ bytes: [UInt8], into path: String, at offset: Int) throws {
        let fd = try FileDescriptor.openFile(path, .readWrite)
        defer { fd.close() }
        try fd.writeAll(bytes, at: Int64(offset))
    }

    static func flipBits(_ mask: UInt8, in path: String, at offset: Int) throws {
        let fd = try FileDescriptor.openFile(path, .readWrite)
        defer { fd.close() }
        var byte: [UInt8] = [0]
        _ = try byte.withUnsafeMutableBytes { raw throws(SystemError) in try fd.read(into: raw, at: Int64(offset)) }
        try fd.writeAll([byte[0] ^ mask], at: Int64(offset))
    }

    /// Bytes that are not records, the same in every run (no zero byte, so none of them reads as room).
    static func junk(_ count: Int, seed: UInt64 = 0x9E37_79B9_7F4A_7C15) -> [UInt8] {
        var state = seed
        return (0..<count).map { _ in
            state = state &* 6_364_136_223_846_793_005 &+ 1_442_695_040_888_963_407
            return UInt8(truncatingIfNeeded: state >> 56) | 1
        }
    }

    static func startUpFails(_ sandbox: JournalSandbox) throws -> DaemonToolRun {
        try DaemonToolRun.run(
            DaemonSpawn.mobiusdPath, ["--socket", sandbox.socketPath, "--state-dir", sandbox.stateDirectory])
    }

    // MARK: - The newest segment: damage that a valid record follows stops start-up, and nothing is cut

    /// One bit of the first record's length: it grows by 65,536 and points into the zero-filled room. The 99 records
    /// after it are valid: this is damage, not a torn write.
    @Test func aFlippedBitInTheFirstLengthStopsStartUpAndCutsNothing() throws {
        let (sandbox, segment) = try Self.hundredEvents()
        let size = try FileSystem.fileSize(segment)
        try Self.flipBits(0x01, in: segment, at: Self.segmentHeader + 2)
        let run = try Self.startUpFails(sandbox)
        #expect(run.exit == .exited(1), "\(run)")
        #expect(run.stderr.contains("\(segment) is damaged at byte \(Self.segmentHeader)"), "\(run.stderr)")
        #expect(run.stderr.contains("seq 2 follows at byte \(Self.recordsEnd(1))"), "\(run.stderr)")
        #expect(try FileSystem.fileSize(segment) == size, "nothing was cut")
    }

    /// A later record's length +256: its claimed end lies among the valid records after it.
    @Test func aFlippedBitInALaterLengthStopsStartUp() throws {
        let (sandbox, segment) = try Self.hundredEvents()
        let size = try FileSystem.fileSize(segment)
        let damaged = Self.recordsEnd(95)
        try Self.flipBits(0x01, in: segment, at: damaged + 1)
        let run = try Self.startUpFails(sandbox)
        #expect(run.exit == .exited(1), "\(run)")
        #expect(run.stderr.contains("\(segment) is damaged at byte \(damaged)"), "\(run.stderr)")
        #expect(try FileSystem.fileSize(segment) == size, "nothing was cut")
    }

    /// Zeros over a record in the middle: the records after them are valid, so start-up stops.
    @Test func zerosOverARecordInTheMiddleStopStartUp() throws {
        let (sandbox, segment) = try Self.hundredEvents()
        let damaged = Self.recordsEnd(50)
        try Self.write([UInt8](repeating: 0, count: Self.recordBytes), into: segment, at: damaged)
        let run = try Self.startUpFails(sandbox)
        #expect(run.exit == .exited(1), "\(run)")
        #expect(run.stderr.contains("\(segment) is damaged at byte \(damaged)"), "\(run.stderr)")
    }

    // MARK: - The newest segment: junk that no valid record follows is the end of the log

    enum Junk: String, CaseIterable, CustomTestStringConvertible {
        case appendedPastTheRoom, rightAfterTheLastRecord, oneByteInTheRoom, tornRecord
        var testDescription: String { rawValue }
    }

    /// What storage may return for blocks never synced, or a write cut short: the daemon starts with every
    /// acknowledged event, and the warning names the file, the offset and how many bytes were cut.
    @Test(arguments: Junk.allCases)
    func junkAfterTheLastRecordIsCutOffWithAWarning(junk: Junk) throws {
        let (sandbox, segment) = try Self.hundredEvents()
        let end = Self.recordsEnd(100)
        let size = Int(try #require(try FileSystem.fileSize(segment)))
        let cut: Int
        switch junk {
        case .appendedPastTheRoom:
            try Self.write(Self.junk(61), into: segment, at: size)
            cut = size + 61 - end
        case .rightAfterTheLastRecord:
            try Self.write(Self.junk(61), into: segment, at: end)
            cut = size - end
        case .oneByteInTheRoom:
            try Self.write([0x5A], into: segment, at: end + 1000)
            cut = size - end
        case .tornRecord:
            // The first 30 bytes of a record for seq 101: a header and part of its event.
            var record: [UInt8] = [20, 0, 0, 0, 0x12, 0x34, 0x56, 0x78, 101, 0, 0, 0, 0, 0, 0, 0]
            record += [UInt8](repeating: 0x11, count: 8) + Array(#"{"type""#.utf8)
            try Self.write(record, into: segment, at: end)
            cut = size - end
        }
        let daemon = try sandbox.start()
        let client = try daemon.connect()
        #expect(try client.request("model").model == 100)
        #expect(try client.request(#"{"type":"increment"}"#).seq == 101)
        try DaemonTraffic.eventually("the warning names the file, the offset and the bytes cut") {
            daemon.standardError.contains("\(segment)") && daemon.standardError.contains("at byte \(end)")
                && daemon.standardError.contains("\(cut) bytes")
        }
        #expect(try FileSystem.fileSize(segment) == Int64(end), "cut back to the last record")
        #expect(try JournalSandbox.readLog(client).items.count == 101)
    }

    // MARK: - Older segments, behind the newest snapshot

    /// 1,000 increments in segments of about 90 records, with snapshots every 300 events: the segments between the
    /// two kept snapshots are older, covered by the newest, and kept for `log`. Returns one of them: its first and
    /// last seq.
    static func compactedHistory() throws -> (JournalSandbox, path: String, first: Int64, last: Int64) {
        let sandbox = JournalSandbox()
        let daemon = try sandbox.start(state: Self.compacting)
        let client = try daemon.connect()
        try DaemonTraffic.sendIncrements(1000, on: client, batch: 10)
        try DaemonTraffic.eventually("two snapshots, the newest past seq 899") {
            let snapshots = sandbox.files().compactMap { name in
                name.hasSuffix(".snapshot") ? Int64(name.prefix(20)) : nil
            }
            return snapshots.count == 2 && (snapshots.max() ?? 0) >= 900
        }
        try daemon.terminate()
        let snapshots = sandbox.files().compactMap { $0.hasSuffix(".snapshot") ? Int64($0.prefix(20)) : nil }.sorted()
        let firsts = sandbox.files().compactMap { $0.hasSuffix(".journal") ? Int64($0.prefix(20)) : nil }.sorted()
        // The first segment wholly between the two snapshots, not the first one kept.
        for index in 1..<(firsts.count - 1) {
            let first = firsts[index]
            let last = firsts[index + 1] - 1
            if first > snapshots[0] + 1 && last <= snapshots[1] {
                return (sandbox, sandbox.stateDirectory + "/" + JournalSandbox.segmentName(first), first, last)
            }
        }
        Issue.record("no older segment between the snapshots \(snapshots) in \(firsts)")
        throw DaemonTestError("no older segment")
    }

    static let compacting = #""segmentBytes":4096,"snapshotEvents":300"#

    enum OlderDamage: String, CaseIterable, CustomTestStringConvertible {
        case flippedByte, truncated, zeroed, deleted, renamed, renamedToAnotherSeq
        var testDescription: String { rawValue }
    }

    /// Start-up goes on (the model comes from the snapshot), says which seqs are lost, `status` lists them, and `log`
    /// ends at them with an error naming them (not `compacted`), then serves what is intact after them.
    @Test(arguments: OlderDamage.allCases)
    func damageInAnOlderSegmentIsReportedAndLogServesAroundIt(damage: OlderDamage) throws {
        let (sandbox, path, first, last) = try Self.compactedHistory()
        let lost: ClosedRange<Int64>
        switch damage {
        case .flippedByte:
            // A byte of the third record's event.
            try Self.flipBits(0x20, in: path, at: Self.recordsEnd(2) + 24 + 5)
            lost = (first + 2)...(first + 2)
        case .truncated:
            let fd = try FileDescriptor.openFile(path, .readWrite)
            try fd.truncate(to: Int64(Self.recordsEnd(5) + 10))
            fd.close()
            lost = (first + 5)...last
        case .zeroed:
            let size = Int(try #require(try FileSystem.fileSize(path)))
            try Self.write([UInt8](repeating: 0, count: size), into: path, at: 0)
            lost = first...last
        case .deleted:
            try FileSystem.remove(path)
            lost = first...last
        case .renamed:
            try FileSystem.rename(path, to: path + ".bak")
            lost = first...last
        case .renamedToAnotherSeq:
            try FileSystem.rename(path, to: sandbox.stateDirectory + "/" + JournalSandbox.segmentName(first + 1))
            lost = first...last
        }
        let range = "seq \(lost.lowerBound)...\(lost.upperBound)"
        let daemon = try sandbox.start(state: Self.compacting)
        let client = try daemon.connect()
        #expect(try client.request("model").model == 1000, "the model comes from the snapshot and the journal after it")
        try DaemonTraffic.eventually("start-up reports \(range)") { daemon.standardError.contains(range) }

        let state = try client.request("status")["state"]
        let reported = try #require(state?["damaged"]?.arrayValue, "\(String(describing: state))")
        #expect(reported.count == 1, "\(reported)")
        #expect(reported.first?["from"]?.int64Value == lost.lowerBound, "\(reported)")
        #expect(reported.first?["through"]?.int64Value == lost.upperBound, "\(reported)")

        let before = try JournalSandbox.readLog(client)
        #expect(before.items.last?["seq"]?.int64Value == lost.lowerBound - 1, "served up to the damage")
        #expect(before.end.seq == lost.lowerBound - 1, "\(before.end)")
        #expect(before.end["compacted"] == nil, "\(before.end)")
        #expect(before.end["error"]?["code"] == "JournalDamaged", "\(before.end)")
        #expect(before.end["error"]?["message"]?.stringValue?.contains(range) == true, "\(before.end)")
        #expect(before.end["damaged"]?["from"]?.int64Value == lost.lowerBound, "\(before.end)")
        #expect(before.end["damaged"]?["through"]?.int64Value == lost.upperBound, "\(before.end)")

        // Resuming where the stream stopped meets the same damage at once; resuming after it gets the rest.
        let again = try JournalSandbox.readLog(client, argument: #"{"since":\#(lost.lowerBound - 1)}"#)
        #expect(again.items.isEmpty && again.end["damaged"] != nil, "\(again.end)")
        let after = try JournalSandbox.readLog(client, argument: #"{"since":\#(lost.upperBound)}"#)
        #expect(after.reply["compacted"] == nil, "\(after.reply)")
        #expect(after.items.compactMap { $0["seq"]?.int64Value } == Array((lost.upperBound + 1)...1000))
        #expect(after.end.seq == 1000 && after.end["error"] == nil, "\(after.end)")
        #expect(try client.request(#"{"type":"increment"}"#).seq == 1001, "the daemon journals on")
        let ctl = try DaemonToolRun.run(CtlBinaries.mobiusctl, ["--socket", sandbox.socketPath, "log", "--since", "0"])
        #expect(ctl.exit == .exited(1), "mobiusctl log ends in error: \(ctl)")
        #expect(ctl.stderr.contains(range) && ctl.stderr.contains("JournalDamaged"), "\(ctl.stderr)")
    }

    /// The oldest kept segment deleted: compaction keeps every record after the older of the two snapshots, so the
    /// seqs from there to the next segment are missing, not compacted.
    @Test func aDeletedOldestSegmentIsAGapNotCompaction() throws {
        let (sandbox, _, _, _) = try Self.compactedHistory()
        let older = try #require(sandbox.files().first { $0.hasSuffix(".snapshot") }.flatMap { Int64($0.prefix(20)) })
        let segments = sandbox.segments()
        try FileSystem.remove(segments[0])
        let lost = (older + 1)...(try #require(Int64(segments[1].suffix(28).prefix(20))) - 1)
        let range = "seq \(lost.lowerBound)...\(lost.upperBound)"
        let daemon = try sandbox.start(state: Self.compacting)
        let client = try daemon.connect()
        #expect(try client.request("model").model == 1000)
        try DaemonTraffic.eventually("start-up reports \(range)") { daemon.standardError.contains(range) }
        let state = try client.request("status")["state"]
        #expect(state?["firstKeptSeq"]?.int64Value == lost.lowerBound, "\(String(describing: state))")
        let log = try JournalSandbox.readLog(client)
        #expect(log.reply["from"]?.int64Value == lost.lowerBound && log.items.isEmpty, "\(log.reply)")
        #expect(log.end["damaged"]?["through"]?.int64Value == lost.upperBound, "\(log.end)")
        let after = try JournalSandbox.readLog(client, argument: #"{"since":\#(lost.upperBound)}"#)
        #expect(after.items.first?["seq"]?.int64Value == lost.upperBound + 1 && after.end.seq == 1000)
    }

    // MARK: - Snapshots

    enum SnapshotDamage: String, CaseIterable, CustomTestStringConvertible {
        case flippedByte, truncated, deleted, renamedToAnotherSeq
        var testDescription: String { rawValue }
    }

    /// A damaged or missing newest snapshot: the older one and the journal after it stand in, nothing is lost, and
    /// the journal behind it is whole (no range is reported damaged, `log` serves every kept event).
    @Test(arguments: SnapshotDamage.allCases)
    func aDamagedNewestSnapshotIsReplacedByTheOlderOneAndTheJournal(damage: SnapshotDamage) throws {
        let (sandbox, _, _, _) = try Self.compactedHistory()
        let newest = try #require(sandbox.files().last { $0.hasSuffix(".snapshot") })
        let path = sandbox.stateDirectory + "/" + newest
        switch damage {
        case .flippedByte:
            try Self.flipBits(0x01, in: path, at: 30)
        case .truncated:
            let fd = try FileDescriptor.openFile(path, .readWrite)
            try fd.truncate(to: 20)
            fd.close()
        case .deleted:
            try FileSystem.remove(path)
        case .renamedToAnotherSeq:
            let seq = try #require(Int64(newest.prefix(20)))
            let digits = String(seq + 1)
            let name = String(repeating: "0", count: 20 - digits.count) + digits + ".snapshot"
            try FileSystem.rename(path, to: sandbox.stateDirectory + "/" + name)
        }
        let daemon = try sandbox.start(state: Self.compacting)
        let client = try daemon.connect()
        #expect(try client.request("model").model == 1000)
        if damage != .deleted {
            try DaemonTraffic.eventually("the log names the damaged snapshot") {
                daemon.standardError.contains("is damaged") && daemon.standardError.contains("recovering from an older")
            }
        }
        #expect(try client.request("status")["state"]?["damaged"]?.arrayValue == [])
        let log = try JournalSandbox.readLog(client)
        let from = try #require(log.reply["from"]?.int64Value)
        #expect(log.items.compactMap { $0["seq"]?.int64Value } == Array(from...1000))
        #expect(log.end.seq == 1000 && log.end["error"] == nil, "\(log.end)")
        #expect(try client.request(#"{"type":"increment"}"#).seq == 1001)
    }
}

extension JournalSandbox {
    /// A segment's file name for its first seq.
    static func segmentName(_ first: Int64) -> String {
        let digits = String(first)
        return String(repeating: "0", count: 20 - digits.count) + digits + ".journal"
    }
}
