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

    @Test("a last segment whose header is gone is kept when it holds a valid record of any seq, its name wrong too")
    func aRenamedHeaderlessSegmentWithRecordsIsKept() throws {
        let directory = try TemporaryDirectory(prefix: "journal-unit")
        defer { directory.remove() }
        // Its only record is seq 1, before the seq its name says.
        let first = try segment(directory, firstSeq: 1, seqs: 1...1)
        try flip(first, at: 0)
        let renamed = directory.file(JournalSegment.name(firstSeq: 2))
        try FileSystem.rename(first, to: renamed)
        #expect {
            _ = try recover(directory)
        } throws: { error in
            "\(error)".contains("\(renamed) is damaged at byte 0: the segment header is not valid")
        }
        #expect(try FileSystem.fileSize(renamed) == Int64(16 + 31), "record 1 is still there")
    }

    @Test("a headerless last segment renamed to a lower seq is searched from where the journal before it ends")
    func aHeaderlessSegmentRenamedLowerIsKept() throws {
        let directory = try TemporaryDirectory(prefix: "journal-unit")
        defer { directory.remove() }
        _ = try segment(directory, firstSeq: 1, seqs: 1...5)
        let second = try segment(directory, firstSeq: 6, seqs: 6...7)
        try flip(second, at: 0)
        let renamed = directory.file(JournalSegment.name(firstSeq: 4))
        try FileSystem.rename(second, to: renamed)
        #expect {
            _ = try recover(directory)
        } throws: { error in
            "\(error)".contains("\(renamed) is damaged at byte 0: the segment header is not valid")
        }
        #expect(try FileSystem.fileSize(renamed) == Int64(16 + 2 * 31), "records 6 and 7 are still there")
    }

    @Test("a headerless last segment renamed below its records, with no journal before it, is kept")
    func aHeaderlessSegmentRenamedBelowItsRecordsIsKept() throws {
        let directory = try TemporaryDirectory(prefix: "journal-unit")
        defer { directory.remove() }
        // Records 6 and 7 at the segment's start, where a segment named 4 could hold only seq 4.
        let only = try segment(directory, firstSeq: 6, seqs: 6...7)
        try flip(only, at: 0)
        let renamed = directory.file(JournalSegment.name(firstSeq: 4))
        try FileSystem.rename(only, to: renamed)
        #expect {
            _ = try recover(directory)
        } throws: { error in
            "\(error)".contains("\(renamed) is damaged at byte 0: the segment header is not valid")
        }
        #expect(try FileSystem.fileSize(renamed) == Int64(16 + 2 * 31), "records 6 and 7 are still there")
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
