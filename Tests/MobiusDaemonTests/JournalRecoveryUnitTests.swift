import MobiusJSON
import MobiusSystem
import MobiusTestSupport
import Testing

@testable import MobiusDaemon

/// Recovery over state directories built byte by byte: the cases a crash or a failing disk leaves behind that the
/// integration tests cannot easily make.
@Suite("Journal: recovery rules")
struct JournalRecoveryUnitTests {
    let epoch = "00112233445566ff"

    /// A segment of `seqs` (31 bytes a record), followed by `zeros` zero bytes (the room the writer fills ahead).
    func segment(
        _ directory: TemporaryDirectory, firstSeq: UInt64, seqs: ClosedRange<UInt64>, zeros: Int = 0
    ) throws -> String {
        var bytes = JournalSegment.header(firstSeq: firstSeq)
        for seq in seqs {
            JournalRecord.append(seq: seq, time: 0, encoding: ["n": .number(JSONNumber(seq))], to: &bytes)
        }
        bytes += [UInt8](repeating: 0, count: zeros)
        let path = directory.file(JournalSegment.name(firstSeq: firstSeq))
        let fd = try FileDescriptor.openFile(path, .createNew(mode: 0o600))
        defer { fd.close() }
        try fd.writeAll(bytes, at: 0)
        return path
    }

    func recover(
        _ directory: TemporaryDirectory
    ) throws(DaemonStartError) -> (JournalRecovery.Outcome, [UInt64], SnapshotFile?) {
        var replayed: [UInt64] = []
        var restored: SnapshotFile?
        let recovery = JournalRecovery(directory: directory.path, epoch: epoch, log: DaemonLog(threshold: .error))
        let outcome = try recovery.run(
            restore: { restored = $0 }, replay: { batch in replayed += batch.map(\.seq) })
        return (outcome, replayed, restored)
    }

    @Test func recordsAStorageFailureUndidAreCutOff() throws {
        let directory = try TemporaryDirectory(prefix: "journal-unit")
        defer { directory.remove() }
        // Seqs 4 and 5 were written, their fdatasync failed, and the cut back did not reach the disk; the next
        // segment starts at 4 again.
        let first = try segment(directory, firstSeq: 1, seqs: 1...5)
        _ = try segment(directory, firstSeq: 4, seqs: 4...6)
        let (outcome, replayed, _) = try recover(directory)
        #expect(replayed == [1, 2, 3, 4, 5, 6])
        #expect(outcome.lastSeq == 6)
        #expect(try FileSystem.fileSize(first) == Int64(16 + 3 * 31), "cut after seq 3")
    }

    @Test("zero-filled room after the records ends every segment (fewer than a header's bytes too); the last is cut")
    func zeroFilledRoomEndsASegment() throws {
        let directory = try TemporaryDirectory(prefix: "journal-unit")
        defer { directory.remove() }
        let first = try segment(directory, firstSeq: 1, seqs: 1...3, zeros: 10)
        let second = try segment(directory, firstSeq: 4, seqs: 4...6, zeros: 4096)
        let (outcome, replayed, _) = try recover(directory)
        #expect(replayed == [1, 2, 3, 4, 5, 6])
        #expect(outcome.lastSeq == 6)
        #expect(try FileSystem.fileSize(first) == Int64(16 + 3 * 31 + 10), "nothing cut")
        #expect(try FileSystem.fileSize(second) == Int64(16 + 3 * 31), "the last gives its unused room back")
    }

    @Test("a record torn into the zero-filled room of the last segment is cut off; a record after zeros is damage")
    func tornIntoZerosIsCutOffButNotDataAfterZeros() throws {
        let directory = try TemporaryDirectory(prefix: "journal-unit")
        defer { directory.remove() }
        let path = try segment(directory, firstSeq: 1, seqs: 1...4, zeros: 4096)
        let end = 16 + 3 * 31
        // Record 4 half written: its second half still zeros.
        let fd = try FileDescriptor.openFile(path, .readWrite)
        try fd.writeAll([UInt8](repeating: 0, count: 15), at: Int64(end + 16))
        fd.close()
        let (outcome, replayed, _) = try recover(directory)
        #expect(replayed == [1, 2, 3])
        #expect(outcome.lastSeq == 3)
        #expect(try FileSystem.fileSize(path) == Int64(end), "cut off at the torn record")

        // A record after zeros cannot be a torn write: the writer never skips room.
        let damaged = try TemporaryDirectory(prefix: "journal-unit")
        defer { damaged.remove() }
        let gap = try segment(damaged, firstSeq: 1, seqs: 1...2, zeros: 64)
        var late: [UInt8] = []
        JournalRecord.append(seq: 3, time: 0, encoding: ["n": 3], to: &late)
        let writer = try FileDescriptor.openFile(gap, .readWrite)
        try writer.writeAll(late, at: Int64(16 + 2 * 31 + 64))
        writer.close()
        #expect {
            _ = try recover(damaged)
        } throws: { error in
            "\(error)".contains("a run of zeros before other bytes, and a valid record of seq 3 follows at byte 142")
        }
    }

    @Test func aGapBetweenSegmentsStopsRecovery() throws {
        let directory = try TemporaryDirectory(prefix: "journal-unit")
        defer { directory.remove() }
        _ = try segment(directory, firstSeq: 1, seqs: 1...3)
        let second = try segment(directory, firstSeq: 5, seqs: 5...6)
        #expect {
            _ = try recover(directory)
        } throws: { error in
            "\(error)".contains("skips from seq 3 to 5 at \(second)")
        }
    }

    @Test func aDamagedNewestSnapshotFallsBackToTheOlderOne() throws {
        let directory = try TemporaryDirectory(prefix: "journal-unit")
        defer { directory.remove() }
        _ = try SnapshotFile(epoch: epoch, seq: 2, time: 0, model: 20).write(into: directory.path)
        let newest = try SnapshotFile(epoch: epoch, seq: 4, time: 0, model: 40).write(into: directory.path)
        let fd = try FileDescriptor.openFile(newest, .readWrite)
        try fd.truncate(to: 20)
        fd.close()
        _ = try segment(directory, firstSeq: 1, seqs: 1...6)
        let (outcome, replayed, restored) = try recover(directory)
        #expect(restored?.seq == 2 && restored?.model == 20)
        #expect(replayed == [3, 4, 5, 6])
        #expect(outcome.catalog.snapshots == [2], "the damaged one counts for nothing in compaction")
        #expect(outcome.lastSeq == 6)
    }

    @Test func aSnapshotOfAnotherEpochStopsRecovery() throws {
        let directory = try TemporaryDirectory(prefix: "journal-unit")
        defer { directory.remove() }
        _ = try SnapshotFile(epoch: "ffffffffffffffff", seq: 2, time: 0, model: 2).write(into: directory.path)
        #expect {
            _ = try recover(directory)
        } throws: { error in
            "\(error)".contains("belongs to epoch ffffffffffffffff")
        }
    }

    @Test func segmentsBehindTheSnapshotAreKeptButNotRead() throws {
        let directory = try TemporaryDirectory(prefix: "journal-unit")
        defer { directory.remove() }
        _ = try segment(directory, firstSeq: 1, seqs: 1...3)
        _ = try segment(directory, firstSeq: 4, seqs: 4...5)
        _ = try SnapshotFile(epoch: epoch, seq: 3, time: 0, model: 3).write(into: directory.path)
        let (outcome, replayed, restored) = try recover(directory)
        #expect(restored?.seq == 3)
        #expect(replayed == [4, 5])
        #expect(outcome.catalog.firstKeptSeq == 1, "log can still serve seq 1")
        #expect(outcome.catalog.segment(containing: 2)?.firstSeq == 1)
    }
    func flip(_ path: String, at offset: Int, mask: UInt8 = 0x01) throws {
        var bytes = try FileSystem.read(path)
        bytes[offset] ^= mask
        let fd = try FileDescriptor.openFile(path, .readWrite)
        defer { fd.close() }
        try fd.writeAll(bytes, at: 0)
    }

    @Test("a record that a valid record follows is damage, whatever its length field claims: nothing is cut")
    func aRecordAValidRecordFollowsIsNeverCutOff() throws {
        for (record, mask) in [(0, UInt8(0x01)), (0, 0x80), (7, 0x01)] {
            let directory = try TemporaryDirectory(prefix: "journal-unit")
            defer { directory.remove() }
            let path = try segment(directory, firstSeq: 1, seqs: 1...10, zeros: 4096)
            let size = try FileSystem.fileSize(path)
            // Byte 2 of the length: +65,536, or (0x80 in byte 3) a length past any segment.
            try flip(path, at: 16 + record * 31 + (mask == 0x80 ? 3 : 2), mask: mask)
            let next = 16 + (record + 1) * 31
            #expect {
                _ = try recover(directory)
            } throws: { error in
                "\(error)".contains("damaged at byte \(16 + record * 31)")
                    && "\(error)".contains("a valid record of seq \(record + 2) follows at byte \(next)")
            }
            #expect(try FileSystem.fileSize(path) == size, "record \(record), mask \(mask): nothing cut")
        }
    }

    @Test("junk that no valid record follows ends the last segment: cut off, the records before it kept")
    func junkNoValidRecordFollowsIsCutOff() throws {
        for junkAt in [16 + 5 * 31, 16 + 5 * 31 + 100, 16 + 5 * 31 + 4096] {
            let directory = try TemporaryDirectory(prefix: "journal-unit")
            defer { directory.remove() }
            let path = try segment(directory, firstSeq: 1, seqs: 1...5, zeros: 4096)
            let fd = try FileDescriptor.openFile(path, .readWrite)
            try fd.writeAll([0xC3, 0x5A, 0xFF, 0x10, 0x42, 0x99, 0x01, 0x7E], at: Int64(junkAt))
            fd.close()
            let (outcome, replayed, _) = try recover(directory)
            #expect(replayed == [1, 2, 3, 4, 5], "junk at \(junkAt)")
            #expect(outcome.lastSeq == 5)
            #expect(try FileSystem.fileSize(path) == Int64(16 + 5 * 31))
        }
    }

    @Test("damage behind the snapshot is reported, and the records after it stay readable from where they resume")
    func damageBehindTheSnapshotIsReported() throws {
        let directory = try TemporaryDirectory(prefix: "journal-unit")
        defer { directory.remove() }
        let first = try segment(directory, firstSeq: 1, seqs: 1...5)
        _ = try segment(directory, firstSeq: 6, seqs: 6...8)
        _ = try segment(directory, firstSeq: 12, seqs: 12...14)
        _ = try SnapshotFile(epoch: epoch, seq: 13, time: 0, model: 13).write(into: directory.path)
        try flip(first, at: 16 + 2 * 31 + 26)
        let (outcome, replayed, _) = try recover(directory)
        #expect(replayed == [14])
        #expect(outcome.lastSeq == 14)
        let damaged = outcome.catalog.damaged.map { $0.firstSeq...$0.lastSeq }
        #expect(damaged == [3...3, 9...11])
        #expect(outcome.catalog.damaged[0].problem.contains("\(first) is damaged at byte \(16 + 2 * 31)"))
        #expect(outcome.catalog.damaged[1].problem.contains("skips from seq 8 to 12"))
        #expect(outcome.catalog.firstKeptSeq == 1)

        let reader = JournalReader(catalog: outcome.catalog)
        let before = reader.read(from: 1, through: 14, maxBytes: 1 << 20, cursor: nil)
        #expect(before.next == 3 && before.damage?.firstSeq == 3 && before.damage?.lastSeq == 3)
        #expect(String(decoding: before.lines, as: UTF8.self).split(separator: "\n").count == 2)
        let after = reader.read(from: 4, through: 14, maxBytes: 1 << 20, cursor: nil)
        #expect(after.next == 9 && after.damage?.firstSeq == 9, "4...8, then the gap")
        let rest = reader.read(from: 12, through: 14, maxBytes: 1 << 20, cursor: nil)
        #expect(rest.next == 15 && rest.damage == nil)
    }

    @Test func damageAfterTheSnapshotStopsRecovery() throws {
        let directory = try TemporaryDirectory(prefix: "journal-unit")
        defer { directory.remove() }
        let path = try segment(directory, firstSeq: 1, seqs: 1...5)
        _ = try SnapshotFile(epoch: epoch, seq: 2, time: 0, model: 2).write(into: directory.path)
        try flip(path, at: 16 + 2 * 31 + 26)
        #expect {
            _ = try recover(directory)
        } throws: { error in
            "\(error)".contains("\(path) is damaged at byte \(16 + 2 * 31)")
        }
    }

    @Test("a missing older segment is a gap behind the snapshot; before the first segment it is compaction")
    func aMissingOlderSegmentIsAGap() throws {
        let directory = try TemporaryDirectory(prefix: "journal-unit")
        defer { directory.remove() }
        _ = try segment(directory, firstSeq: 4, seqs: 4...6)
        _ = try segment(directory, firstSeq: 10, seqs: 10...12)
        _ = try SnapshotFile(epoch: epoch, seq: 11, time: 0, model: 11).write(into: directory.path)
        let (outcome, replayed, _) = try recover(directory)
        #expect(replayed == [12])
        #expect(outcome.catalog.damaged.map { $0.firstSeq...$0.lastSeq } == [7...9])
        #expect(outcome.catalog.firstKeptSeq == 4)
    }

    @Test func aSegmentRenamedToSeqZeroIsNotASegment() throws {
        let directory = try TemporaryDirectory(prefix: "journal-unit")
        defer { directory.remove() }
        let path = try segment(directory, firstSeq: 1, seqs: 1...3)
        try FileSystem.rename(path, to: directory.file(JournalSegment.name(firstSeq: 0)))
        _ = try segment(directory, firstSeq: 4, seqs: 4...5)
        #expect {
            _ = try recover(directory)
        } throws: { error in
            "\(error)".contains("no record of events 1...3")
        }
    }
    @Test("damage a reader meets after start-up counts to the end of its segment, for every later reader too")
    func damageFoundByAReaderIsKept() throws {
        let directory = try TemporaryDirectory(prefix: "journal-unit")
        defer { directory.remove() }
        let first = try segment(directory, firstSeq: 1, seqs: 1...5)
        _ = try segment(directory, firstSeq: 6, seqs: 6...8)
        let (outcome, _, _) = try recover(directory)
        // A length field rots while the daemon runs: it claims far more than the file holds.
        try flip(first, at: 16 + 2 * 31 + 3, mask: 0x10)
        let reader = JournalReader(catalog: outcome.catalog)
        let chunk = reader.read(from: 1, through: 8, maxBytes: 1 << 20, cursor: nil)
        #expect(chunk.next == 3 && chunk.problem != nil)
        #expect(chunk.damage.map { $0.firstSeq...$0.lastSeq } == 3...5)
        #expect(outcome.catalog.damaged.map { $0.firstSeq...$0.lastSeq } == [3...5])
        let rest = reader.read(from: 6, through: 8, maxBytes: 1 << 20, cursor: nil)
        #expect(rest.next == 9 && rest.damage == nil)
    }
}
