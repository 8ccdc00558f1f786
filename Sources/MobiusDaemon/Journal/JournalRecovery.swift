import MobiusJSON
import MobiusSystem

/// Start-up: finds the newest valid snapshot and the journal records after it, checks every byte on the way, and
/// hands the records to the loop in order (docs/protocol.md 5).
///
/// The end of the log is the first bad position after which no valid record with a later seq can be found: what
/// follows it (a write a crash cut short, junk in blocks never synced) is cut off with a warning. Damage that a
/// valid record follows, a missing segment or a foreign epoch stops start-up with a message naming the file, the
/// byte offset and what to do, when it lies after the snapshot; behind the snapshot (segments kept for `log`) it is
/// reported and kept in the catalog for `log` and `status`. Nothing that a valid record follows is ever cut off.
struct JournalRecovery {
    let directory: String
    let epoch: String
    let log: DaemonLog
    /// Snapshots compaction keeps (`state.keepSnapshots`): the journal holds every record after the oldest of them.
    var keepSnapshots = 2

    /// What recovery found.
    struct Outcome {
        let snapshot: SnapshotFile?
        /// The seq of the last journaled event (the snapshot's when no record follows it).
        let lastSeq: UInt64
        /// Records replayed after the snapshot.
        let replayed: Int
        let catalog: JournalCatalog
    }

    /// One event to replay.
    typealias Replayed = (seq: UInt64, event: JSONValue)

    /// How many records are handed to `replay` at once.
    static let replayBatch = 4096

    /// Runs recovery: `restore` gets the snapshot (if any), `expecting` how many events are about to be replayed
    /// (counted from the segments before they are checked, for progress reports), `replay` the later events in
    /// batches, in seq order.
    func run(
        restore: (SnapshotFile) throws(DaemonStartError) -> Void,
        expecting: (Int) -> Void = { _ in },
        replay: ([Replayed]) -> Void
    ) throws(DaemonStartError) -> Outcome {
        let names: [String]
        do {
            names = try DirectoryListing.names(in: directory)
        } catch {
            throw DaemonStartError(description: "cannot list the state directory \(directory): \(error)")
        }
        if names.contains(SnapshotFile.temporaryName) {
            try? FileSystem.remove(directory + "/" + SnapshotFile.temporaryName)
        }
        var segments = names.compactMap { name in
            JournalSegment.firstSeq(ofName: name).map { (firstSeq: $0, path: directory + "/" + name) }
        }.sorted { $0.firstSeq < $1.firstSeq }
        let snapshotSeqs = names.compactMap(SnapshotFile.seq(ofName:)).sorted()
        let (snapshot, skipped) = try newestSnapshot(snapshotSeqs, segments: segments)
        if let snapshot { try restore(snapshot) }
        let base = snapshot?.seq ?? 0
        expecting(Self.countRecords(after: base, in: segments))

        // Every segment is read and checked; only the records after the snapshot are replayed. Damage at or
        // before the snapshot's seq is reported and left for `log` to name; damage after it stops start-up.
        var expected: UInt64?
        var recovered: [JournalCatalog.Segment] = []
        var damaged: [JournalCatalog.Damage] = []
        // Files before the next usable segment that cannot be read as segments (first seq by name, problem), for
        // the gap they leave.
        var unusable: [(firstSeq: UInt64, problem: String)] = []
        // Compaction keeps every record after the oldest kept snapshot: a journal that starts later lost its first
        // segment files. (With fewer snapshots on disk than are kept, compaction kept the records after the oldest.)
        let keptAfter =
            snapshotSeqs.count >= 2 ? snapshotSeqs[max(0, snapshotSeqs.count - max(2, keepSnapshots))] : nil
        /// The first seq the next usable segment must start at, if any.
        func gapStart() -> UInt64? {
            expected ?? [unusable.first?.firstSeq, keptAfter.map { $0 + 1 }].compactMap { $0 }.min()
        }
        /// Why the seqs from `gapStart()` are missing.
        func missing(_ detail: String) -> String {
            if !unusable.isEmpty { return unusable.map(\.problem).joined(separator: "; ") }
            if expected == nil, let keptAfter {
                return "no segment file holds them, though the journal keeps every record after the snapshot at seq "
                    + "\(keptAfter) (\(detail))"
            }
            return "no segment file holds them (\(detail))"
        }
        var replayedCount = 0
        var batch: [Replayed] = []
        batch.reserveCapacity(Self.replayBatch)
        var index = 0
        while index < segments.count {
            let segment = segments[index]
            let nextFirst = index + 1 < segments.count ? segments[index + 1].firstSeq : nil
            let bytes: [UInt8]
            do {
                bytes = try FileSystem.read(segment.path)
            } catch {
                throw DaemonStartError(description: "cannot read the journal segment \(segment.path): \(error)")
            }
            let header = bytes.withUnsafeBytes { raw in
                Result { () throws(DaemonStartError) in
                    try checkHeader(raw, segment.path, firstSeq: segment.firstSeq, isLast: nextFirst == nil)
                }
            }
            switch try header.get() {
            case .removed:
                segments.remove(at: index)
                // With nothing after it now, an unusable segment before it is the last one: checked again as such.
                if index == segments.count, unusable.popLast() != nil { index -= 1 }
                continue
            case .unusable(let problem):
                unusable.append((segment.firstSeq, problem))
                index += 1
                continue
            case .valid:
                break
            }
            if let from = gapStart(), segment.firstSeq > from {
                let problem = missing(
                    "the journal skips from seq \(from - 1) to \(segment.firstSeq) at \(segment.path)")
                try lost(from...(segment.firstSeq - 1), problem, base: base, into: &damaged)
            } else if let expected, segment.firstSeq < expected {
                throw DaemonStartError(
                    description: "the journal skips from seq \(expected - 1) back to \(segment.firstSeq) at "
                        + "\(segment.path). Restore the state directory \(directory) from a backup")
            }
            if expected == nil && segment.firstSeq > base + 1 {
                // The first segment must start at or before the first event the snapshot lacks.
                throw DaemonStartError(
                    description: "the journal has no record of events \(base + 1)...\(segment.firstSeq - 1): "
                        + "\(segment.path) is the first segment after "
                        + (snapshot.map { "the snapshot at seq \($0.seq)" } ?? "the start of the history")
                        + ". Restore the missing segment files from a backup of \(directory)")
            }
            unusable = []
            let scanned = bytes.withUnsafeBytes { raw in
                Result { () throws(DaemonStartError) in
                    try scan(
                        raw, segment.path, firstSeq: segment.firstSeq, base: base, isLast: nextFirst == nil,
                        nextFirst: nextFirst.flatMap { confirmed($0, at: segments[index + 1].path) }
                    ) {
                        seq, event in
                        batch.append((seq, event))
                        if batch.count == Self.replayBatch {
                            replayedCount += batch.count
                            replay(batch)
                            batch.removeAll(keepingCapacity: true)
                        }
                    }
                }
            }
            let found = try scanned.get()
            damaged += found.damaged
            guard found.segment.lastSeq >= segment.firstSeq || !found.damaged.isEmpty else {
                // Only a header (and room): nothing was committed into it.
                try? FileSystem.remove(segment.path)
                segments.remove(at: index)
                continue
            }
            recovered.append(found.segment)
            expected = max(found.segment.lastSeq, found.damaged.last?.lastSeq ?? 0) + 1
            index += 1
        }
        if !batch.isEmpty {
            replayedCount += batch.count
            replay(batch)
        }
        // A journal that ends before the snapshot lost the segments up to it (the model is whole).
        if let from = gapStart(), from <= base {
            try lost(from...base, missing("the journal ends at seq \(from - 1)"), base: base, into: &damaged)
        }
        let lastSeq = max((expected ?? 1) - 1, base)
        // A damaged snapshot's name says how far the history went: what stood in for it must get there.
        if let skipped, lastSeq < skipped.seq {
            throw DaemonStartError(
                description: "the snapshot \(skipped.path) is damaged (\(skipped.problem)) and no older snapshot or "
                    + "journal can stand in for it: the journal ends at seq \(lastSeq). Restore it from a backup of "
                    + "\(directory)")
        }
        for damage in damaged {
            log.error(
                "the journal cannot serve seq \(damage.firstSeq)...\(damage.lastSeq) to log: \(damage.problem). "
                    + "The model comes from the snapshot at seq \(base), so start-up goes on; log names the range "
                    + "and serves the records after it. A backup of \(directory) may still hold them")
        }
        return Outcome(
            snapshot: snapshot, lastSeq: lastSeq, replayed: replayedCount,
            // A damaged snapshot newer than the one used stays on disk (named in the warning) but counts for nothing
            // when compaction decides what to keep.
            catalog: JournalCatalog(
                segments: recovered, snapshots: snapshotSeqs.filter { $0 <= base }, damaged: damaged))
    }

    /// How many records after `base` the segments hold, before they are checked: by their names for all but the last
    /// (a segment ends where the next starts), by walking the last one's record lengths.
    static func countRecords(after base: UInt64, in segments: [(firstSeq: UInt64, path: String)]) -> Int {
        guard let last = segments.last else { return 0 }
        var count: UInt64 = 0
        for (segment, next) in zip(segments, segments.dropFirst()) where next.firstSeq > max(segment.firstSeq, base + 1)
        {
            count += next.firstSeq - max(segment.firstSeq, base + 1)
        }
        guard let bytes = try? FileSystem.read(last.path) else { return Int(clamping: count) }
        bytes.withUnsafeBytes { raw in
            var offset = JournalSegment.headerSize
            while case .record(let record, let next) = JournalRecord.parse(raw, at: offset, verify: false) {
                if record.seq > base { count += 1 }
                offset = next
            }
        }
        return Int(clamping: count)
    }

    /// Seqs the journal cannot give back: reported when the snapshot covers them, else start-up stops.
    private func lost(
        _ seqs: ClosedRange<UInt64>, _ problem: String, base: UInt64, into damaged: inout [JournalCatalog.Damage]
    ) throws(DaemonStartError) {
        guard seqs.upperBound <= base else {
            throw DaemonStartError(
                description: "the journal has no valid record of events \(seqs.lowerBound)...\(seqs.upperBound): "
                    + "\(problem). Start-up stops so that nothing is dropped silently. Restore the state directory "
                    + "\(directory) from a backup")
        }
        damaged.append(JournalCatalog.Damage(firstSeq: seqs.lowerBound, lastSeq: seqs.upperBound, problem: problem))
    }

    /// The newest snapshot that reads back whole, of this epoch, and the newest damaged one skipped for it. A damaged
    /// one is skipped with a warning when an older one and the journal after it can stand in; otherwise start-up
    /// stops.
    private func newestSnapshot(
        _ seqs: [UInt64], segments: [(firstSeq: UInt64, path: String)]
    ) throws(DaemonStartError) -> (SnapshotFile?, skipped: (seq: UInt64, path: String, problem: String)?) {
        var skipped: (seq: UInt64, path: String, problem: String)?
        for (position, seq) in seqs.enumerated().reversed() {
            let path = directory + "/" + SnapshotFile.name(seq: seq)
            do {
                let bytes: [UInt8]
                do {
                    bytes = try FileSystem.read(path)
                } catch {
                    throw SnapshotFile.Problem(description: "it cannot be read: \(error)")
                }
                let snapshot = try SnapshotFile.decode(bytes)
                guard snapshot.seq == seq else {
                    throw SnapshotFile.Problem(description: "it holds seq \(snapshot.seq), not the \(seq) of its name")
                }
                guard snapshot.epoch == epoch else {
                    throw DaemonStartError(
                        description: "the snapshot \(path) belongs to epoch \(snapshot.epoch), not to this state "
                            + "directory's \(epoch): files of two histories are mixed in \(directory). Move the "
                            + "files that do not belong there away")
                }
                return (snapshot, skipped)
            } catch let problem as SnapshotFile.Problem {
                // A snapshot named seq 0 holds no event: nothing needs to stand in for it.
                let olderCovered = position > 0 || seq == 0 || (segments.first.map { $0.firstSeq <= 1 } ?? false)
                guard olderCovered else {
                    throw DaemonStartError(
                        description: "the snapshot \(path) is damaged (\(problem)) and no older snapshot or journal "
                            + "can stand in for it. Restore it from a backup of \(directory)")
                }
                log.warning("the snapshot \(path) is damaged (\(problem)); recovering from an older one instead")
                skipped = skipped ?? (seq, path, problem.description)
            } catch let error as DaemonStartError {
                throw error
            } catch {
                throw DaemonStartError(description: "\(error)")
            }
        }
        return (nil, skipped)
    }

    private enum Header {
        case valid
        /// The last segment held nothing of value and was removed.
        case removed
        /// Not readable as a segment; the gap it leaves is named by the next segment.
        case unusable(String)
    }

    /// Checks a segment's header. The last segment is removed with a warning when it ends inside its header (a
    /// crash while it was created) or has no valid header and holds no valid record.
    private func checkHeader(
        _ raw: UnsafeRawBufferPointer, _ path: String, firstSeq: UInt64, isLast: Bool
    ) throws(DaemonStartError) -> Header {
        guard let headerSeq = JournalSegment.firstSeq(inHeader: raw) else {
            // Records of any seq, wherever they sit: the name of a file whose header is gone may be wrong too (a
            // renamed file), so neither it nor the journal so far bounds the seqs. Finding one keeps the file.
            let valid = JournalRecord.find(
                in: raw, from: JournalSegment.headerSize, seqs: 1...UInt64.max, firstSeq: nil)
            if isLast && valid == nil {
                log.warning(
                    raw.count < JournalSegment.headerSize
                        ? "the journal segment \(path) ends inside its header (a crash while it was created); removed"
                        : "the journal segment \(path) has no valid header and its \(raw.count) bytes hold no valid "
                            + "record (a crash while it was created, or blocks the storage never wrote); removed")
                try? FileSystem.remove(path)
                return .removed
            }
            guard isLast else { return .unusable("the segment header of \(path) is not valid") }
            throw damage(path, offset: 0, "the segment header is not valid", seq: firstSeq)
        }
        guard headerSeq == firstSeq else {
            guard isLast else {
                return .unusable("the header of \(path) says seq \(headerSeq), its name \(firstSeq) (a renamed file?)")
            }
            throw damage(path, offset: 8, "the header says seq \(headerSeq), the name \(firstSeq)", seq: firstSeq)
        }
        return .valid
    }

    /// A segment as found, and the seqs in it that are damaged (all at or before the snapshot's seq).
    private struct Scanned {
        var segment: JournalCatalog.Segment
        var damaged: [JournalCatalog.Damage] = []
    }

    /// Reads and checks one segment's records (checksum, seq following seq, and JSON for those replayed), calling
    /// `each` for the records after `base`.
    ///
    /// Where no valid next record starts, the rest of the segment is searched for a valid record with a later seq
    /// (`JournalRecord.find`). If there is one, the records between are damaged: start-up stops when any of them
    /// is after `base`, else they are reported and the records after them kept. If there is none, the segment's
    /// records end there (`endOfRecords`). Nothing that a valid record follows is ever cut off. `nextFirst` is where
    /// the next segment starts, known only when its header agrees with its name.
    private func scan(
        _ raw: UnsafeRawBufferPointer, _ path: String, firstSeq: UInt64, base: UInt64, isLast: Bool,
        nextFirst: UInt64?, each: (UInt64, JSONValue) -> Void
    ) throws(DaemonStartError) -> Scanned {
        var found = Scanned(segment: segment(path, firstSeq, firstSeq - 1, JournalSegment.headerSize))
        var offset = JournalSegment.headerSize
        var lastSeq = firstSeq - 1
        while offset < raw.count {
            let problem: String
            switch JournalRecord.parse(raw, at: offset) {
            case .record(let record, let next):
                if let nextFirst, record.seq >= nextFirst {
                    log.warning(
                        "the journal segment \(path) holds records from seq \(record.seq) on that a storage "
                            + "failure undid (the next segment starts at \(nextFirst)); cut off at byte \(offset)")
                    truncate(path, at: offset)
                    return found
                }
                guard record.seq == lastSeq + 1 else {
                    problem = "seq \(record.seq) follows seq \(lastSeq)"
                    break
                }
                if record.seq > base {
                    guard let event = try? JSONValue(parsing: record.event) else {
                        throw damage(
                            path, offset: offset, "record \(record.seq) holds no valid JSON", seq: record.seq)
                    }
                    each(record.seq, event)
                }
                lastSeq = record.seq
                offset = next
                found.segment.lastSeq = lastSeq
                found.segment.length = Int64(offset)
                continue
            case .end where JournalRecord.isZero(raw, from: offset),
                .incomplete where JournalRecord.isZero(raw, from: offset):
                // The zero-filled room the writer kept ahead of its records. The daemon starts a new segment at
                // every start: the last one gives its unused room back.
                if isLast { truncate(path, at: offset) }
                return found
            case .end:
                problem = "a run of zeros before other bytes"
            case .incomplete where raw.count - offset >= JournalRecord.headerSize:
                let length = raw.loadUnaligned(fromByteOffset: offset, as: UInt32.self).littleEndian
                problem = "a record length of \(length) bytes, past the end of the file"
            case .incomplete:
                problem = "the segment ends inside a record"
            case .damaged(let what):
                problem = what
            }
            // A record a storage failure undid has a seq the next segment starts again at: it does not count.
            let laterThrough = (nextFirst ?? .max) - 1
            guard laterThrough > lastSeq,
                let (record, resumeAt) = JournalRecord.find(
                    in: raw, from: offset, seqs: (lastSeq + 1)...laterThrough, firstSeq: firstSeq)
            else {
                try endOfRecords(path, at: offset, problem, lastSeq: lastSeq, base: base, raw.count, nextFirst, &found)
                return found
            }
            guard record.seq <= base + 1 else {
                throw damage(
                    path, offset: offset,
                    "\(problem), and a valid record of seq \(record.seq) follows at byte \(resumeAt)",
                    seq: lastSeq + 1)
            }
            found.damaged.append(
                JournalCatalog.Damage(
                    firstSeq: lastSeq + 1, lastSeq: record.seq - 1,
                    problem: "\(path) is damaged at byte \(offset): \(problem)"))
            found.segment.restarts.append(JournalReader.Cursor(path: path, offset: Int64(resumeAt), seq: record.seq))
            lastSeq = record.seq - 1
            offset = resumeAt
        }
        return found
    }

    /// `firstSeq` when the segment at `path` has a header that says so. A file's name alone does not tell where the
    /// next segment starts (a renamed file): records at or after it would be cut off as undone by a storage failure.
    private func confirmed(_ firstSeq: UInt64, at path: String) -> UInt64? {
        var header = [UInt8](repeating: 0, count: JournalSegment.headerSize)
        let count = try? header.withUnsafeMutableBytes { buffer throws(SystemError) in
            let fd = try FileDescriptor.openFile(path, .readOnly)
            defer { fd.close() }
            return try fd.read(into: buffer, at: 0)
        }
        guard count == header.count else { return nil }
        return header.withUnsafeBytes { JournalSegment.firstSeq(inHeader: $0) } == firstSeq ? firstSeq : nil
    }

    /// The segment's records end at `offset`, and no valid record follows in it. When this is the last segment,
    /// or the next one starts right after, what follows holds nothing acknowledged (a torn write, junk in blocks
    /// never synced): it is cut off with a warning. Otherwise the seqs up to the next segment are lost.
    private func endOfRecords(
        _ path: String, at offset: Int, _ problem: String, lastSeq: UInt64, base: UInt64, _ size: Int,
        _ nextFirst: UInt64?, _ found: inout Scanned
    ) throws(DaemonStartError) {
        if let nextFirst, nextFirst > lastSeq + 1 {
            guard nextFirst - 1 <= base else { throw damage(path, offset: offset, problem, seq: lastSeq + 1) }
            found.damaged.append(
                JournalCatalog.Damage(
                    firstSeq: lastSeq + 1, lastSeq: nextFirst - 1,
                    problem: "\(path) is damaged at byte \(offset): \(problem), and no valid record follows"))
            return
        }
        log.warning(
            "the journal segment \(path) ends at byte \(offset), followed by \(size - offset) bytes that hold no "
                + "valid record after seq \(lastSeq) (\(problem): a write cut short by a crash, or junk in blocks "
                + "the storage never wrote; never acknowledged); cut off there")
        truncate(path, at: offset)
    }

    private func segment(
        _ path: String, _ firstSeq: UInt64, _ lastSeq: UInt64, _ length: Int
    )
        -> JournalCatalog.Segment
    {
        JournalCatalog.Segment(firstSeq: firstSeq, path: path, lastSeq: lastSeq, length: Int64(length))
    }

    private func truncate(_ path: String, at offset: Int) {
        do {
            let fd = try FileDescriptor.openFile(path, .readWrite)
            defer { fd.close() }
            try fd.truncate(to: Int64(offset))
            try fd.synchronize()
        } catch {
            log.warning("cannot cut \(path) at byte \(offset): \(error)")
        }
    }

    private func damage(_ path: String, offset: Int, _ what: String, seq: UInt64) -> DaemonStartError {
        DaemonStartError(
            description: "the journal segment \(path) is damaged at byte \(offset): \(what). Start-up stops so "
                + "that nothing is dropped silently. Restore the state directory \(directory) from a backup; or, "
                + "to keep the events before seq \(seq) and lose the rest, save a copy of the directory, then cut "
                + "the file there (truncate -s \(offset) \(path)) and remove the segment files after it")
    }
}
