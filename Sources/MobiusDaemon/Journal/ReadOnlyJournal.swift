import MobiusJSON
import MobiusSystem

/// A state directory read without touching it, for `replay`: no lock is taken and nothing is written, cut off or
/// removed, so a daemon that runs on it goes on serving. It checks what recovery checks (headers, checksums, seqs
/// following seqs, snapshots of this epoch), but where recovery would cut a torn tail off it only stops reading, and
/// damage that a valid record follows is an error naming the file and the byte offset.
struct ReadOnlyJournal {
    let directory: String
    /// The history's name (empty for a directory that holds no history yet).
    let epoch: String
    /// Segment files, oldest first.
    let segments: [(firstSeq: UInt64, path: String)]
    /// Seqs of the snapshot files, oldest first.
    let snapshots: [UInt64]

    /// Lists the directory and reads its epoch.
    ///
    /// - Throws: `ReplayFailure` when the directory cannot be listed, or its epoch file is missing or damaged while
    ///   it holds a journal.
    static func open(_ directory: String) throws(ReplayFailure) -> ReadOnlyJournal {
        let names: [String]
        do {
            names = try DirectoryListing.names(in: directory)
        } catch {
            throw ReplayFailure("cannot read the state directory \(directory): \(error)")
        }
        let segments = names.compactMap { name in
            JournalSegment.firstSeq(ofName: name).map { (firstSeq: $0, path: directory + "/" + name) }
        }.sorted { $0.firstSeq < $1.firstSeq }
        let snapshots = names.compactMap(SnapshotFile.seq(ofName:)).sorted()
        let file = directory + "/" + StateDirectory.epochName
        var epoch = ""
        if names.contains(StateDirectory.epochName) {
            do {
                epoch = String(decoding: try FileSystem.read(file), as: UTF8.self)
            } catch {
                throw ReplayFailure("cannot read the epoch file \(file): \(error)")
            }
            if epoch.hasSuffix("\n") { epoch.removeLast() }
            guard StateDirectory.isEpoch(epoch) else {
                throw ReplayFailure("the epoch file \(file) is damaged (expected 16 hex digits)")
            }
        } else if !segments.isEmpty || !snapshots.isEmpty {
            throw ReplayFailure("the state directory \(directory) holds a journal but no epoch file")
        }
        return ReadOnlyJournal(directory: directory, epoch: epoch, segments: segments, snapshots: snapshots)
    }

    /// The snapshot of `seq`, checked: whole, the seq its name says, and of this history.
    func snapshot(_ seq: UInt64) throws(ReplayFailure) -> SnapshotFile {
        do throws(SnapshotFile.Problem) {
            return try SnapshotFile.read(seq: seq, in: directory, epoch: epoch)
        } catch {
            throw ReplayFailure(error.description)
        }
    }

    /// The seq from which the journal holds every record, as its first segment's name says (`nil`: no segment).
    private var firstJournaled: UInt64? { segments.first?.firstSeq }

    /// Whether a replay can start right after `base` (0: the start of the history, else a snapshot's seq): the
    /// journal holds the records that follow it, or there are none.
    private func canStart(after base: UInt64) -> Bool {
        guard let first = firstJournaled else { return base == 0 || base == snapshots.last }
        return first <= base + 1
    }

    /// The earliest seq a replay can compare after: 0 when the journal goes back to the start, else the oldest
    /// snapshot the journal goes on from.
    var earliestStart: UInt64? {
        canStart(after: 0) ? 0 : snapshots.first(where: canStart(after:))
    }

    /// Where a replay of the events after `since` starts: the newest snapshot at or before it that the journal goes
    /// on from (`nil`: the start of the history), so that the fewest events are replayed to reach it.
    ///
    /// - Throws: `ReplayFailure` when no such starting point exists (the events up to `since` were compacted away),
    ///   naming the earliest `--since` there is.
    func base(for since: UInt64) throws(ReplayFailure) -> SnapshotFile? {
        for seq in snapshots.reversed() where seq <= since && canStart(after: seq) {
            return try snapshot(seq)
        }
        guard canStart(after: 0) else {
            let earliest = earliestStart.map { "; the earliest --since is \($0)" } ?? ""
            throw ReplayFailure(
                "the journal no longer holds the events that lead to seq \(since): it starts at seq "
                    + "\(firstJournaled ?? 0) and no snapshot at or before seq \(since) comes before that\(earliest)")
        }
        return nil
    }

    /// Where the journal ends: the seq of the last journaled event (the last segment that holds a record, read
    /// through), and what follows it when that is not the zero-filled room a daemon keeps ahead of its records.
    func end() throws(ReplayFailure) -> (lastSeq: UInt64, tornTail: String?) {
        for index in segments.indices.reversed() {
            var reader = Reader(self, from: segments[index].firstSeq)
            var last: UInt64?
            while let record = try reader.next() { last = record.seq }
            if let last { return (last, reader.tornTail) }
        }
        return (snapshots.last ?? 0, nil)
    }

    /// One journaled event.
    struct Record {
        let seq: UInt64
        /// Nanoseconds since 1970 (UTC) when its pass was written.
        let time: Int64
        /// The event's compact JSON.
        let text: ArraySlice<UInt8>
        /// Where it is, for messages.
        let path: String
        let offset: Int
    }

    /// The records from one seq on, in order, one segment file in memory at a time (as recovery reads them).
    struct Reader {
        private let history: ReadOnlyJournal
        private let from: UInt64
        private var index: Int
        private var bytes: [UInt8] = []
        private var loaded = false
        private var offset = 0
        /// The seq the next record must have.
        private var expected: UInt64

        /// The seq of the record `next` returns.
        var nextSeq: UInt64 { max(expected, from) }
        /// Once `next` has returned `nil`: what ends the last segment's records when it is not the zero-filled room
        /// ahead of them (a torn last write, which recovery cuts off), naming the file and the byte offset.
        private(set) var tornTail: String?

        /// Reads from `from` on; records before it in its segment are checked and skipped.
        init(_ history: ReadOnlyJournal, from: UInt64) {
            self.history = history
            self.from = from
            index = history.segments.lastIndex { $0.firstSeq <= from } ?? 0
            // A journal that starts after `from` fails its first read: it no longer holds `from`.
            expected = history.segments.isEmpty ? from : min(from, history.segments[index].firstSeq)
        }

        /// The next record, or `nil` where the journal ends.
        ///
        /// - Throws: `ReplayFailure` naming the file (and the byte offset) when a segment cannot be read, its
        ///   header is not valid, records are damaged and a valid one follows, or seqs are missing.
        mutating func next() throws(ReplayFailure) -> Record? {
            while index < history.segments.count {
                let segment = history.segments[index]
                let nextFirst = index + 1 < history.segments.count ? history.segments[index + 1].firstSeq : nil
                if !loaded {
                    guard try load(segment, isLast: nextFirst == nil) else { return nil }
                }
                switch step(segment, nextFirst: nextFirst) {
                case .record(let seq, let time, let event, let next):
                    let at = offset
                    offset = next
                    expected = seq + 1
                    guard seq >= from else { continue }
                    return Record(seq: seq, time: time, text: bytes[event], path: segment.path, offset: at)
                case .endOfSegment(let torn):
                    if let torn, nextFirst == nil { tornTail = "\(segment.path) at byte \(offset): \(torn)" }
                    index += 1
                    loaded = false
                    bytes = []
                case .damaged(let problem):
                    throw Self.damage(segment.path, offset, problem)
                }
            }
            return nil
        }

        /// Reads a segment whole and checks its header and place; `false` when it is the last one and holds
        /// nothing yet (a daemon is making it).
        private mutating func load(
            _ segment: (firstSeq: UInt64, path: String), isLast: Bool
        ) throws(ReplayFailure)
            -> Bool
        {
            guard segment.firstSeq <= expected else {
                let what =
                    expected > from
                    ? "has no record of seqs \(expected)...\(segment.firstSeq - 1)"
                    : "no longer holds seq \(from) (compacted)"
                throw ReplayFailure("the journal \(what): \(segment.path) starts at seq \(segment.firstSeq)")
            }
            guard segment.firstSeq == expected else {
                throw ReplayFailure(
                    "the journal skips back from seq \(expected - 1) to seq \(segment.firstSeq) at \(segment.path)")
            }
            do {
                bytes = try FileSystem.read(segment.path)
            } catch {
                throw ReplayFailure("cannot read the journal segment \(segment.path): \(error)")
            }
            let header = bytes.withUnsafeBytes { JournalSegment.firstSeq(inHeader: $0) }
            if header == nil && isLast && bytes.count < JournalSegment.headerSize { return false }
            guard header == segment.firstSeq else {
                throw Self.damage(
                    segment.path, 0,
                    "the segment header is not that of a segment starting at seq "
                        + "\(segment.firstSeq)")
            }
            offset = JournalSegment.headerSize
            loaded = true
            return true
        }

        private enum Step {
            case record(seq: UInt64, time: Int64, event: Range<Int>, next: Int)
            /// The segment's records end here: nothing valid follows in it; `torn` says what is there instead
            /// when it is not a run of zeros.
            case endOfSegment(torn: String?)
            case damaged(String)
        }

        /// What is at `offset`. Where no valid next record starts, the rest of the segment is searched for a valid
        /// record with a later seq (as recovery does): if there is one, the bytes between are damage; if not, the
        /// segment's records end there (a torn last write, the zero-filled room ahead of a running daemon's records).
        private func step(_ segment: (firstSeq: UInt64, path: String), nextFirst: UInt64?) -> Step {
            bytes.withUnsafeBytes { raw in
                let problem: String
                var zeros = false
                switch JournalRecord.parse(raw, at: offset) {
                case .record(let record, let next):
                    // A record a storage failure undid: the next segment starts again at its seq.
                    if let nextFirst, record.seq >= nextFirst { return .endOfSegment(torn: nil) }
                    guard record.seq == expected else {
                        problem = "seq \(record.seq) where seq \(expected) should be"
                        break
                    }
                    let start = offset + JournalRecord.headerSize
                    return .record(
                        seq: record.seq, time: record.time, event: start..<(start + record.event.count),
                        next: next)
                case .end:
                    problem = "a run of zeros"
                    zeros = true
                case .incomplete:
                    problem = "a record that runs past the end of the file"
                case .damaged(let what):
                    problem = what
                }
                let laterThrough = (nextFirst ?? .max) - 1
                guard expected <= laterThrough,
                    let (record, at) = JournalRecord.find(
                        in: raw, from: offset, seqs: expected...laterThrough, firstSeq: segment.firstSeq)
                else { return .endOfSegment(torn: zeros || offset == raw.count ? nil : problem) }
                return .damaged("\(problem), and a valid record of seq \(record.seq) follows at byte \(at)")
            }
        }

        static func damage(_ path: String, _ offset: Int, _ what: String) -> ReplayFailure {
            ReplayFailure("the journal segment \(path) is damaged at byte \(offset): \(what)")
        }
    }
}
