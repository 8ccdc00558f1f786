import MobiusJSON
import MobiusSystem

/// Start-up: finds the newest valid snapshot and the journal records after it, checks every byte on the way, and
/// hands the records to the loop in order (PROTOCOL.md 5).
///
/// A torn final record (a write a crash cut short, never acknowledged) is cut off with a warning. Anything else
/// that is wrong (a bad checksum or a gap before the end, a missing segment, a foreign epoch) stops start-up with a
/// message naming the file, the byte offset and what to do: nothing is dropped silently.
struct JournalRecovery {
    let directory: String
    let epoch: String
    let log: DaemonLog

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

    /// Runs recovery: `restore` gets the snapshot (if any), `replay` the later events in batches, in seq order.
    func run(
        restore: (SnapshotFile) throws(DaemonStartError) -> Void,
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
        let snapshot = try newestSnapshot(snapshotSeqs, segments: segments)
        if let snapshot { try restore(snapshot) }
        let base = snapshot?.seq ?? 0

        // Segments wholly behind the snapshot are kept for `log` but not read.
        var expected = base + 1
        var recovered: [JournalCatalog.Segment] = []
        var replayedCount = 0
        var batch: [Replayed] = []
        batch.reserveCapacity(Self.replayBatch)
        var index = 0
        var readAny = false
        while index < segments.count {
            let segment = segments[index]
            let nextFirst = index + 1 < segments.count ? segments[index + 1].firstSeq : nil
            if let nextFirst, nextFirst <= base + 1, segment.firstSeq < nextFirst {
                let length = (try? FileSystem.fileSize(segment.path)) ?? nil
                recovered.append(
                    JournalCatalog.Segment(
                        firstSeq: segment.firstSeq, path: segment.path, lastSeq: nextFirst - 1, length: length ?? 0))
                index += 1
                continue
            }
            if !readAny {
                // The first segment read must start at or before the first event the snapshot lacks.
                guard segment.firstSeq <= expected else {
                    throw DaemonStartError(
                        description: "the journal has no record of events \(expected)...\(segment.firstSeq - 1): "
                            + "\(segment.path) is the first segment after "
                            + (snapshot.map { "the snapshot at seq \($0.seq)" } ?? "the start of the history")
                            + ". Restore the missing segment files from a backup of \(directory)")
                }
            } else if segment.firstSeq != expected {
                throw DaemonStartError(
                    description: "the journal skips from seq \(expected - 1) to \(segment.firstSeq) at "
                        + "\(segment.path). Restore the missing segment files from a backup of \(directory)")
            }
            readAny = true
            let isLast = index == segments.count - 1
            let scanned = try scan(
                segment.path, firstSeq: segment.firstSeq, expected: &expected, base: base, isLast: isLast,
                undoneFrom: nextFirst
            ) { seq, event in
                batch.append((seq, event))
                if batch.count == Self.replayBatch {
                    replayedCount += batch.count
                    replay(batch)
                    batch.removeAll(keepingCapacity: true)
                }
            }
            if let scanned {
                recovered.append(scanned)
            } else {
                segments.remove(at: index)
                continue
            }
            index += 1
        }
        if !batch.isEmpty {
            replayedCount += batch.count
            replay(batch)
        }
        let lastSeq = max(expected - 1, base)
        return Outcome(
            snapshot: snapshot, lastSeq: lastSeq, replayed: replayedCount,
            // A damaged snapshot newer than the one used stays on disk (named in the warning) but counts for nothing
            // when compaction decides what to keep.
            catalog: JournalCatalog(segments: recovered, snapshots: snapshotSeqs.filter { $0 <= base }))
    }

    /// The newest snapshot that reads back whole, of this epoch. A damaged one is skipped with a warning when an
    /// older one and the journal after it can stand in; otherwise start-up stops.
    private func newestSnapshot(
        _ seqs: [UInt64], segments: [(firstSeq: UInt64, path: String)]
    ) throws(DaemonStartError) -> SnapshotFile? {
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
                return snapshot
            } catch let problem as SnapshotFile.Problem {
                let olderCovered = position > 0 || (segments.first.map { $0.firstSeq <= 1 } ?? false)
                guard olderCovered else {
                    throw DaemonStartError(
                        description: "the snapshot \(path) is damaged (\(problem)) and no older snapshot or journal "
                            + "can stand in for it. Restore it from a backup of \(directory)")
                }
                log.warning("the snapshot \(path) is damaged (\(problem)); recovering from an older one instead")
            } catch let error as DaemonStartError {
                throw error
            } catch {
                throw DaemonStartError(description: "\(error)")
            }
        }
        return nil
    }

    /// Reads and checks one segment, calling `each` for the records after `base`. Returns the segment as found, or
    /// `nil` when it held no record and was removed.
    private func scan(
        _ path: String, firstSeq: UInt64, expected: inout UInt64, base: UInt64, isLast: Bool,
        undoneFrom: UInt64?, each: (UInt64, JSONValue) -> Void
    ) throws(DaemonStartError) -> JournalCatalog.Segment? {
        let bytes: [UInt8]
        do {
            bytes = try FileSystem.read(path)
        } catch {
            throw DaemonStartError(description: "cannot read the journal segment \(path): \(error)")
        }
        let result = bytes.withUnsafeBytes { raw in
            Result { () throws(DaemonStartError) in
                try scan(
                    raw, path, firstSeq: firstSeq, expected: &expected, base: base, isLast: isLast,
                    undoneFrom: undoneFrom, each: each)
            }
        }
        return try result.get()
    }

    private func scan(
        _ raw: UnsafeRawBufferPointer, _ path: String, firstSeq: UInt64, expected: inout UInt64, base: UInt64,
        isLast: Bool, undoneFrom: UInt64?, each: (UInt64, JSONValue) -> Void
    ) throws(DaemonStartError) -> JournalCatalog.Segment? {
        guard let headerSeq = JournalSegment.firstSeq(inHeader: raw) else {
            if raw.count < JournalSegment.headerSize && isLast {
                log.warning(
                    "the journal segment \(path) ends inside its header (a crash while it was created); removed")
                try? FileSystem.remove(path)
                return nil
            }
            throw damage(path, offset: 0, "the segment header is not valid", seq: expected)
        }
        guard headerSeq == firstSeq else {
            throw damage(path, offset: 8, "the header says seq \(headerSeq), the name \(firstSeq)", seq: expected)
        }
        var offset = JournalSegment.headerSize
        var lastSeq = firstSeq - 1
        while offset < raw.count {
            switch JournalRecord.parse(raw, at: offset) {
            case .record(let record, let next):
                if let undoneFrom, record.seq >= undoneFrom {
                    log.warning(
                        "the journal segment \(path) holds records from seq \(record.seq) on that a storage "
                            + "failure undid (the next segment starts at \(undoneFrom)); cut off at byte \(offset)")
                    truncate(path, at: offset)
                    return segment(path, firstSeq, lastSeq, offset)
                }
                let wanted = lastSeq + 1
                guard record.seq == wanted else {
                    throw damage(path, offset: offset, "seq \(record.seq) follows seq \(lastSeq)", seq: wanted)
                }
                if record.seq > base {
                    guard let event = try? JSONValue(parsing: record.event) else {
                        throw damage(
                            path, offset: offset, "record \(record.seq) holds no valid JSON", seq: record.seq)
                    }
                    each(record.seq, event)
                }
                lastSeq = record.seq
                expected = max(expected, record.seq + 1)
                offset = next
            case .end where !JournalRecord.isZero(raw, from: offset):
                throw damage(path, offset: offset, "records follow a run of zeros", seq: lastSeq + 1)
            case .incomplete where JournalRecord.isZero(raw, from: offset), .end:
                // The zero-filled room the writer kept ahead of its records.
                if lastSeq < firstSeq {
                    try? FileSystem.remove(path)
                    return nil
                }
                // The daemon starts a new segment at every start: the last one gives its unused room back.
                if isLast { truncate(path, at: offset) }
                return segment(path, firstSeq, lastSeq, offset)
            case .incomplete where isLast:
                log.warning(
                    "the journal segment \(path) ends in a torn record at byte \(offset) (a write cut short "
                        + "by a crash, never acknowledged); cut off there")
                truncate(path, at: offset)
                return segment(path, firstSeq, lastSeq, offset)
            case .incomplete:
                throw damage(path, offset: offset, "the segment ends inside a record", seq: lastSeq + 1)
            case .damaged(let what) where isLast && isTornIntoZeros(raw, at: offset):
                log.warning(
                    "the journal segment \(path) ends in a torn record at byte \(offset) (\(what); a write cut "
                        + "short by a crash into the zero-filled room ahead, never acknowledged); cut off there")
                truncate(path, at: offset)
                return segment(path, firstSeq, lastSeq, offset)
            case .damaged(let what):
                throw damage(path, offset: offset, what, seq: lastSeq + 1)
            }
        }
        if lastSeq < firstSeq {
            // Only a header: nothing was committed into it.
            try? FileSystem.remove(path)
            return nil
        }
        return segment(path, firstSeq, lastSeq, offset)
    }

    /// Whether the damaged record at `offset` is a write cut short in the zero-filled room: nothing but zeros after
    /// its own extent (after its header, when its length field is itself torn).
    private func isTornIntoZeros(_ raw: UnsafeRawBufferPointer, at offset: Int) -> Bool {
        guard raw.count - offset >= JournalRecord.headerSize else { return false }
        let length = Int(raw.loadUnaligned(fromByteOffset: offset, as: UInt32.self).littleEndian)
        let claimedEnd = offset + JournalRecord.headerSize + length
        let end = claimedEnd <= raw.count ? claimedEnd : offset + JournalRecord.headerSize
        return JournalRecord.isZero(raw, from: end)
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
