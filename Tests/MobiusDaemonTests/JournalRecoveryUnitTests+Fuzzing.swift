import MobiusJSON
import MobiusSystem
import MobiusTestSupport
import Testing

@testable import MobiusDaemon

/// State directories the journal fuzz target found recovery getting wrong (docs/reliability.md, "Fuzzing"); their
/// inputs are in Fuzz/Corpus/journal.
extension JournalRecoveryUnitTests {
    @Test("a renamed last segment stops recovery and cuts nothing, though its name puts the records before it after it")
    func aRenamedLastSegmentCutsNothing() throws {
        let directory = try TemporaryDirectory(prefix: "journal-unit")
        defer { directory.remove() }
        let first = try segment(directory, firstSeq: 1, seqs: 1...5)
        let second = try segment(directory, firstSeq: 6, seqs: 6...8)
        try FileSystem.rename(second, to: directory.file(JournalSegment.name(firstSeq: 3)))
        #expect {
            _ = try recover(directory)
        } throws: { error in
            "\(error)".contains("the header says seq 6, the name 3")
        }
        #expect(try FileSystem.fileSize(first) == Int64(16 + 5 * 31), "records 3 to 5 are still there")
    }

    @Test("records before a renamed segment are not taken for records a storage failure undid")
    func aRenamedMiddleSegmentIsAGapNotAnUndoneTail() throws {
        let directory = try TemporaryDirectory(prefix: "journal-unit")
        defer { directory.remove() }
        let first = try segment(directory, firstSeq: 1, seqs: 1...5)
        let second = try segment(directory, firstSeq: 6, seqs: 6...8)
        _ = try segment(directory, firstSeq: 9, seqs: 9...10)
        _ = try SnapshotFile(epoch: epoch, seq: 8, time: 0, model: 8).write(into: directory.path)
        try FileSystem.rename(second, to: directory.file(JournalSegment.name(firstSeq: 3)))
        let (outcome, replayed, _) = try recover(directory)
        #expect(replayed == [9, 10])
        #expect(outcome.catalog.damaged.map { $0.firstSeq...$0.lastSeq } == [6...8])
        #expect(try FileSystem.fileSize(first) == Int64(16 + 5 * 31), "records 3 to 5 are still there")
    }

    @Test("a segment with a broken header stops recovery when the only segment after it was removed")
    func anUnusableSegmentIsNotForgottenWhenTheLastIsRemoved() throws {
        let directory = try TemporaryDirectory(prefix: "journal-unit")
        defer { directory.remove() }
        let first = try segment(directory, firstSeq: 1, seqs: 1...4)
        try flip(first, at: 0)
        // A crash right after creating the next segment: it ends inside its header, and is removed.
        let empty = try FileDescriptor.openFile(
            directory.file(JournalSegment.name(firstSeq: 5)), .createNew(mode: 0o600))
        empty.close()
        #expect {
            _ = try recover(directory)
        } throws: { error in
            "\(error)".contains("\(first) is damaged at byte 0: the segment header is not valid")
        }
    }

    @Test("a damaged snapshot stops recovery when the journal that stood in for it turns out to hold nothing")
    func aDamagedSnapshotNeedsAJournalThatReachesIt() throws {
        let directory = try TemporaryDirectory(prefix: "journal-unit")
        defer { directory.remove() }
        let snapshot = try SnapshotFile(epoch: epoch, seq: 3, time: 0, model: 3).write(into: directory.path)
        try flip(snapshot, at: 20)
        // Segment 1's header and records are gone: junk where they were.
        let junk = try FileDescriptor.openFile(
            directory.file(JournalSegment.name(firstSeq: 1)), .createNew(mode: 0o600))
        try junk.writeAll([UInt8](repeating: 0xA5, count: 40), at: 0)
        junk.close()
        // Twice: the first recovery removes the junk segment, and must not have started from nothing before that.
        for _ in 1...2 {
            #expect {
                _ = try recover(directory)
            } throws: { error in
                "\(error)".contains("\(snapshot) is damaged") && "\(error)".contains("no older snapshot or journal")
            }
        }
    }

    /// A last segment whose header is gone, renamed: its only segment before it (if any), its own records, the seq
    /// of the name it was given.
    struct RenamedHeaderless: Sendable, CustomTestStringConvertible {
        let before: ClosedRange<UInt64>?
        let records: ClosedRange<UInt64>
        let renamedTo: UInt64
        var testDescription: String {
            "records \(records) named \(renamedTo)" + (before.map { ", after records \($0)" } ?? ", alone")
        }
    }

    @Test(
        "a last segment whose header is gone is kept while it holds a valid record of any seq, its name wrong too",
        arguments: [
            // Named above its only record.
            RenamedHeaderless(before: nil, records: 1...1, renamedTo: 2),
            // Named lower, where the journal before it ends.
            RenamedHeaderless(before: 1...5, records: 6...7, renamedTo: 4),
            // Named below its records with no journal before it: a segment named 4 could hold only seq 4 where
            // records 6 and 7 sit.
            RenamedHeaderless(before: nil, records: 6...7, renamedTo: 4),
            // Named far below its one record: the name bounds nothing.
            RenamedHeaderless(before: nil, records: 6...6, renamedTo: 1),
        ])
    func aRenamedHeaderlessSegmentWithRecordsIsKept(_ layout: RenamedHeaderless) throws {
        let directory = try TemporaryDirectory(prefix: "journal-unit")
        defer { directory.remove() }
        if let before = layout.before { _ = try segment(directory, firstSeq: before.lowerBound, seqs: before) }
        let last = try segment(directory, firstSeq: layout.records.lowerBound, seqs: layout.records)
        try flip(last, at: 0)
        let renamed = directory.file(JournalSegment.name(firstSeq: layout.renamedTo))
        try FileSystem.rename(last, to: renamed)
        #expect {
            _ = try recover(directory)
        } throws: { error in
            "\(error)".contains("\(renamed) is damaged at byte 0: the segment header is not valid")
        }
        #expect(
            try FileSystem.fileSize(renamed) == Int64(16 + layout.records.count * 31),
            "records \(layout.records) are still there")
    }

    @Test(
        "a damaged segment behind the snapshot is judged the same at every recovery when the last segment held nothing",
        arguments: [
            // Its header and records are gone: not a segment, and no valid record in it.
            0,
            // Its records are gone: with a segment after it, seqs lost behind the snapshot; last, a torn tail.
            16,
        ])
    func aDamagedSegmentBeforeAnEmptyLastOneIsJudgedAsLast(junkFrom offset: Int) throws {
        let directory = try TemporaryDirectory(prefix: "journal-unit")
        defer { directory.remove() }
        let first = try segment(directory, firstSeq: 1, seqs: 1...3)
        let junk = try FileDescriptor.openFile(first, .readWrite)
        try junk.writeAll([UInt8](repeating: 0xA5, count: 16 + 3 * 31 - offset), at: Int64(offset))
        junk.close()
        _ = try SnapshotFile(epoch: epoch, seq: 5, time: 0, model: 5).write(into: directory.path)
        // Segment 6's only record is a torn write: it holds nothing of value.
        let last = try segment(directory, firstSeq: 6, seqs: 6...6)
        let torn = try FileDescriptor.openFile(last, .readWrite)
        try torn.truncate(to: 16 + 20)
        torn.close()
        let (outcome, replayed, restored) = try recover(directory)
        #expect(outcome.lastSeq == 5 && replayed.isEmpty && restored?.seq == 5)
        var files: [String: [UInt8]] = [:]
        for name in try DirectoryListing.names(in: directory.path) {
            files[name] = try FileSystem.read(directory.file(name))
        }
        #expect(files[JournalSegment.name(firstSeq: 6)] == nil)
        // The next recovery finds the same files and changes none.
        let (again, _, _) = try recover(directory)
        #expect(again.lastSeq == 5)
        for name in try DirectoryListing.names(in: directory.path) {
            #expect(try FileSystem.read(directory.file(name)) == files[name], "\(name) changed")
        }
        #expect(try DirectoryListing.names(in: directory.path).count == files.count)
        #expect(
            again.catalog.damaged.map { $0.firstSeq...$0.lastSeq }
                == outcome.catalog.damaged.map { $0.firstSeq...$0.lastSeq })
    }

    @Test("a segment renamed into the journal's covered seqs stops recovery when it holds a record after the snapshot")
    func aRenamedSegmentWithALaterRecordIsNotIgnored() throws {
        let directory = try TemporaryDirectory(prefix: "journal-unit")
        defer { directory.remove() }
        let first = try segment(directory, firstSeq: 1, seqs: 1...11)
        let size = try FileSystem.fileSize(first)
        _ = try SnapshotFile(epoch: epoch, seq: 7, time: 0, model: 7).write(into: directory.path)
        // Segment 13 renamed to 10: segments 1 and 12 hold every seq up to 12 without it, so no gap names it.
        let renamed = try segment(directory, firstSeq: 13, seqs: 13...13)
        try FileSystem.rename(renamed, to: directory.file(JournalSegment.name(firstSeq: 10)))
        _ = try segment(directory, firstSeq: 12, seqs: 12...12)
        #expect {
            _ = try recover(directory)
        } throws: { error in
            "\(error)".contains("the header of \(directory.file(JournalSegment.name(firstSeq: 10))) says seq 13")
                && "\(error)".contains("a valid record of seq 13 at byte 16")
        }
        #expect(try FileSystem.fileSize(first) == size, "nothing was cut")
    }

    @Test("a damaged snapshot named seq 0 needs nothing to stand in for it: every start gives the same outcome")
    func aDamagedSnapshotOfSeqZeroIsSkippedEveryTime() throws {
        let directory = try TemporaryDirectory(prefix: "journal-unit")
        defer { directory.remove() }
        let snapshot = try SnapshotFile(epoch: epoch, seq: 0, time: 0, model: 0).write(into: directory.path)
        try flip(snapshot, at: 20)
        // A crash right after creating the first segment: it ends inside its header.
        let torn = try FileDescriptor.openFile(
            directory.file(JournalSegment.name(firstSeq: 1)), .createNew(mode: 0o600))
        try torn.writeAll([0x4D, 0x4F], at: 0)
        torn.close()
        for _ in 1...2 {
            let (outcome, replayed, restored) = try recover(directory)
            #expect(outcome.lastSeq == 0 && replayed.isEmpty && restored == nil)
        }
    }
}
