import MobiusJSON
import MobiusSystem

/// Reads `log` items from the segment files, on the read thread: for readers behind what `RecentRecords` holds.
struct JournalReader: Sendable {
    let catalog: JournalCatalog

    /// Where a reader stopped: the next record of a segment.
    struct Cursor: Sendable, Equatable {
        let path: String
        let offset: Int64
        let seq: UInt64
    }

    /// What one read produced.
    struct Chunk: Sendable {
        /// Log lines, ready to send.
        var lines: [UInt8] = []
        /// The next seq to send.
        var next: UInt64
        var cursor: Cursor?
        /// The records from `next` on are no longer on disk (compacted while the reader was behind).
        var vanished = false
        /// The records from `next` on are damaged or missing (found at start-up, or by this read).
        var damage: JournalCatalog.Damage?
        /// Damage this read found, for the log.
        var problem: String?
        /// For `log {"models":true}`: the model right after seq `next - 1`, which the next read goes on from.
        var model: JSONValue?
        /// For `log {"models":true}`: why the stream cannot go on, when that is neither compaction nor damage.
        var refusal: HistoryProblem?
    }

    /// Reads log lines for seqs `from...through`, about `maxBytes` of them, starting at `cursor` when it points at
    /// `from`. Stops before damaged seqs, which the chunk then names.
    func read(from: UInt64, through: UInt64, maxBytes: Int, cursor: Cursor?) -> Chunk {
        read(from: from, through: through, maxBytes: maxBytes, cursor: cursor) { record, lines in
            LogLine.append(record, to: &lines)
            return true
        }
    }

    /// Reads the records of seqs `from...through` in order, handing each to `each`, which may append to the chunk's
    /// lines and returns `false` to stop before that record (it then stays the next). Stops once the lines reach
    /// about `maxBytes`, and before damaged seqs, which the chunk then names.
    func read(
        from: UInt64, through: UInt64, maxBytes: Int, cursor: Cursor?,
        each: (JournalRecord, inout [UInt8]) -> Bool
    ) -> Chunk {
        var chunk = Chunk(next: from)
        let damage = catalog.damage(in: from...max(from, through))
        if let damage, damage.firstSeq <= from {
            chunk.damage = damage
            return chunk
        }
        let stop = damage.map { min(through, $0.firstSeq - 1) } ?? through
        var position = cursor.flatMap { $0.seq == from ? $0 : nil }
        var endedAt: String?
        var stopped = false
        while chunk.next <= stop && chunk.lines.count < maxBytes && !stopped {
            if position == nil {
                guard let segment = catalog.segment(containing: chunk.next) else {
                    chunk.vanished = true
                    return chunk
                }
                guard segment.path != endedAt else {
                    fail("\(segment.path) does not hold seq \(chunk.next) where the catalog puts it", &chunk)
                    return chunk
                }
                position = segment.start(for: chunk.next)
            }
            guard let at = position else { break }
            let outcome = readSegment(at, through: stop, maxBytes: maxBytes, into: &chunk, stopped: &stopped, each)
            switch outcome {
            case .moved(let next):
                position = next
            case .endOfSegment:
                endedAt = at.path
                position = nil
                if catalog.segment(containing: chunk.next) == nil {
                    chunk.vanished = chunk.next <= stop
                    return chunk
                }
            case .failed(let problem):
                fail(problem, &chunk)
                return chunk
            }
        }
        if chunk.next > stop && stop < through { chunk.damage = damage }
        chunk.cursor = position
        return chunk
    }

    /// Damage found while reading: the seqs from `chunk.next` to the end of their segment are damaged from now on,
    /// for this reader and every later one.
    private func fail(_ problem: String, _ chunk: inout Chunk) {
        let damage = JournalCatalog.Damage(
            firstSeq: chunk.next, lastSeq: max(chunk.next, catalog.segment(containing: chunk.next)?.lastSeq ?? 0),
            problem: problem)
        catalog.noteDamage(damage)
        chunk.problem = problem
        chunk.damage = catalog.damage(in: chunk.next...chunk.next) ?? damage
    }

    private enum SegmentOutcome {
        case moved(Cursor)
        case endOfSegment
        case failed(String)
    }

    /// Reads one block of a segment from `at`, handing `each` the records from `chunk.next` on.
    private func readSegment(
        _ at: Cursor, through: UInt64, maxBytes: Int, into chunk: inout Chunk, stopped: inout Bool,
        _ each: (JournalRecord, inout [UInt8]) -> Bool
    ) -> SegmentOutcome {
        let fd: FileDescriptor
        do {
            fd = try FileDescriptor.openFile(at.path, .readOnly)
        } catch {
            return .endOfSegment
        }
        defer { fd.close() }
        var blockSize = 256 * 1024
        while true {
            var block = [UInt8](repeating: 0, count: blockSize)
            let count: Int
            do {
                count = try block.withUnsafeMutableBytes { raw throws(SystemError) in
                    try fd.read(into: raw, at: at.offset)
                }
            } catch {
                return .failed("\(at.path): \(error)")
            }
            if count == 0 { return .endOfSegment }
            var offset = 0
            var seq = at.seq
            let outcome = block.withUnsafeBytes { raw -> SegmentOutcome? in
                let filled = UnsafeRawBufferPointer(rebasing: raw[0..<count])
                while offset < filled.count && chunk.next <= through && chunk.lines.count < maxBytes {
                    switch JournalRecord.parse(filled, at: offset) {
                    case .record(let record, let next):
                        if record.seq >= chunk.next {
                            guard record.seq == chunk.next else { return .endOfSegment }
                            guard each(record, &chunk.lines) else {
                                stopped = true
                                return .moved(Cursor(path: at.path, offset: at.offset + Int64(offset), seq: seq))
                            }
                            chunk.next += 1
                        }
                        seq = record.seq + 1
                        offset = next
                    case .incomplete:
                        // The rest is beyond this block (or not committed yet).
                        return offset == 0 && count == blockSize
                            ? nil : .moved(Cursor(path: at.path, offset: at.offset + Int64(offset), seq: seq))
                    case .end:
                        // The zero-filled room ahead of the records: nothing more here yet.
                        return .moved(Cursor(path: at.path, offset: at.offset + Int64(offset), seq: seq))
                    case .damaged(let what):
                        return .failed("\(at.path) at byte \(at.offset + Int64(offset)): \(what)")
                    }
                }
                return .moved(Cursor(path: at.path, offset: at.offset + Int64(offset), seq: seq))
            }
            if let outcome {
                if !stopped, case .moved(let cursor) = outcome, cursor.offset == at.offset { return .endOfSegment }
                return outcome
            }
            // One record bigger than the block: read it whole, if the file holds that much (a damaged length field
            // may claim up to a GiB).
            let length = block.withUnsafeBytes {
                Int($0.loadUnaligned(fromByteOffset: 0, as: UInt32.self).littleEndian)
            }
            let available = Int(((try? fd.size()) ?? 0) - at.offset)
            guard JournalRecord.headerSize + length <= available else {
                return .failed("\(at.path) at byte \(at.offset): a record length of \(length) bytes past its end")
            }
            blockSize = JournalRecord.headerSize + length
        }
    }
}
