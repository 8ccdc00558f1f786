/// The newest committed journal records, in memory and bounded in bytes: `log` readers at the head are served from
/// here without touching the disk, and with `--ephemeral` this is all the history there is. Owned by the reactor
/// thread.
final class RecentRecords {
    /// The records themselves, one value: each call below touches it once.
    private var held: HeldRecords

    init(limit: Int) {
        held = HeldRecords(limit: limit)
    }

    var limit: Int { held.limit }

    /// The lowest seq held, or `nil` when empty.
    var firstSeq: UInt64? { held.firstSeq }

    /// Keeps a committed pass's records (`HeldRecords.append`).
    func append(_ records: inout [UInt8], firstSeq: UInt64, lastSeq: UInt64) {
        // Changed while moved out of the object, so no access to `held` spans the append (docs/architecture.md,
        // "Exclusivity").
        var moved = HeldRecords(limit: 0)
        swap(&moved, &held)
        moved.append(&records, firstSeq: firstSeq, lastSeq: lastSeq)
        swap(&moved, &held)
    }

    /// Appends log lines from the records held (`HeldRecords.appendLines`).
    func appendLines(from: UInt64, through: UInt64, maxBytes: Int, to output: inout [UInt8]) -> UInt64? {
        held.appendLines(from: from, through: through, maxBytes: maxBytes, to: &output) { record, output in
            LogLine.append(record, to: &output)
            return true
        }
    }

    /// Hands the records held for `from...through` to `each`, which appends to `output` or returns `false` to stop
    /// before that record (`HeldRecords.appendLines`).
    func appendLines(
        from: UInt64, through: UInt64, maxBytes: Int, to output: inout [UInt8],
        each: (JournalRecord, inout [UInt8]) -> Bool
    ) -> UInt64? {
        held.appendLines(from: from, through: through, maxBytes: maxBytes, to: &output, each: each)
    }
}

/// What `RecentRecords` holds: chunks of records in seq order, the oldest first from `head`.
private struct HeldRecords {
    private struct Chunk {
        let firstSeq: UInt64
        var lastSeq: UInt64
        /// Records in the journal's format.
        var bytes: [UInt8]
    }

    /// Passes smaller than this share a chunk: a one-event pass (about 45 bytes) then costs a copy into the newest
    /// chunk instead of a chunk and an array of its own, and a `log` reader at the head scans at most this much of
    /// a chunk to find its next seq. A small window shares less (an eighth of it), so its bound stays close.
    private var sharedChunkBytes: Int { min(4096, limit / 8) }

    private var chunks: [Chunk] = []
    private var head = 0
    private var bytes = 0
    let limit: Int

    init(limit: Int) {
        self.limit = limit
    }

    /// The lowest seq held, or `nil` when empty.
    var firstSeq: UInt64? { head < chunks.count ? chunks[head].firstSeq : nil }

    /// Keeps a committed pass's records, dropping the oldest beyond the bound (the newest pass always stays).
    /// A pass copied into the newest chunk leaves `records` as it was, for the caller to reuse its buffer; a pass
    /// that starts a chunk is taken over (`records` is left empty, without capacity).
    mutating func append(_ records: inout [UInt8], firstSeq: UInt64, lastSeq: UInt64) {
        guard limit > 0, !records.isEmpty else { return }
        bytes += records.count
        let last = chunks.count - 1
        if last >= head, chunks[last].lastSeq &+ 1 == firstSeq,
            chunks[last].bytes.count + records.count <= sharedChunkBytes
        {
            chunks[last].bytes.append(contentsOf: records)
            chunks[last].lastSeq = lastSeq
        } else {
            var kept: [UInt8] = []
            swap(&kept, &records)
            chunks.append(Chunk(firstSeq: firstSeq, lastSeq: lastSeq, bytes: kept))
        }
        while bytes > limit, head < chunks.count - 1 {
            bytes -= chunks[head].bytes.count
            head += 1
        }
        if head > 64 && head * 2 > chunks.count {
            chunks.removeFirst(head)
            head = 0
        }
    }

    /// Hands the records of seqs `from...through` to `each`, which appends log lines to `output`, until it has grown
    /// by about `maxBytes` or `each` returns `false` (before that record). Returns the next seq to send, or `nil` when
    /// `from` is older than what is held (read it from disk).
    func appendLines(
        from: UInt64, through: UInt64, maxBytes: Int, to output: inout [UInt8],
        each: (JournalRecord, inout [UInt8]) -> Bool
    ) -> UInt64? {
        guard let first = firstSeq, from >= first else { return nil }
        guard from <= through else { return from }
        var index = chunks.count - 1
        while index > head && chunks[index].firstSeq > from { index -= 1 }
        var next = from
        let start = output.count
        var stopped = false
        while index < chunks.count, next <= through, output.count - start < maxBytes, !stopped {
            let chunk = chunks[index]
            if chunk.lastSeq >= next {
                chunk.bytes.withUnsafeBytes { raw in
                    var offset = 0
                    while offset < raw.count, next <= through, output.count - start < maxBytes {
                        guard case .record(let record, let after) = JournalRecord.parse(raw, at: offset, verify: false)
                        else { return }
                        if record.seq == next {
                            guard each(record, &output) else {
                                stopped = true
                                return
                            }
                            next += 1
                        }
                        offset = after
                    }
                }
            }
            index += 1
        }
        return next
    }
}
