import MobiusJSON
import MobiusSystem
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

    @Test("a record torn into the zero-filled room of the last segment is cut off; anything after zeros is damage")
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
            "\(error)".contains("records follow a run of zeros")
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
}
