/// The newest committed journal records, in memory and bounded in bytes: `log` readers at the head are served from
/// here without touching the disk, and with `--ephemeral` this is all the history there is. Owned by the reactor
/// thread.
final class RecentRecords {
    private struct Chunk {
        let firstSeq: UInt64
        let lastSeq: UInt64
        let content: Content
        /// What the chunk counts against the bound.
        let size: Int
    }

    /// A pass as the journal wrote it, or (with `--ephemeral`, where nothing is written) its events' texts as
    /// they are: a client's compact line is kept without encoding or copying it again.
    private enum Content {
        /// Records in the journal's format.
        case records([UInt8])
        /// Each event's compact JSON, in seq order from `firstSeq`, all written at `time`.
        case texts(time: Int64, [[UInt8]])
    }

    /// What a kept text costs beyond its bytes (its array and its place in the chunk), counted against the bound so
    /// that it bounds memory, not only bytes.
    static let perTextOverhead = 48

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
    func append(_ records: [UInt8], firstSeq: UInt64, lastSeq: UInt64) {
        guard limit > 0, !records.isEmpty else { return }
        keep(Chunk(firstSeq: firstSeq, lastSeq: lastSeq, content: .records(records), size: records.count))
    }

    /// Keeps a committed pass's events (seqs `firstSeq...`) by their texts, written at `time`: the ephemeral
    /// journal's way, which writes no records. An event without a client's text is encoded here.
    func append(_ entries: [PassCommit.Entry], time: Int64) {
        guard limit > 0, let first = entries.first?.seq, let last = entries.last?.seq else { return }
        var texts: [[UInt8]] = []
        texts.reserveCapacity(entries.count)
        var size = 0
        for entry in entries {
            let text = entry.text ?? entry.event.encoded()
            size += text.count + JournalRecord.headerSize + Self.perTextOverhead
            texts.append(text)
        }
        keep(Chunk(firstSeq: first, lastSeq: last, content: .texts(time: time, texts), size: size))
    }

    private func keep(_ chunk: Chunk) {
        chunks.append(chunk)
        bytes += chunk.size
        while bytes > limit, head < chunks.count - 1 {
            bytes -= chunks[head].size
            head += 1
        }
        if head > 64 && head * 2 > chunks.count {
            chunks.removeFirst(head)
            head = 0
        }
    }

    /// Appends log lines for seqs `from...through` to `output` until it has grown by about `maxBytes`. Returns the
    /// next seq to send, or `nil` when `from` is older than what is held (read it from disk).
    func appendLines(from: UInt64, through: UInt64, maxBytes: Int, to output: inout [UInt8]) -> UInt64? {
        guard let first = firstSeq, from >= first else { return nil }
        guard from <= through else { return from }
        var index = chunks.count - 1
        while index > head && chunks[index].firstSeq > from { index -= 1 }
        var next = from
        let start = output.count
        while index < chunks.count, next <= through, output.count - start < maxBytes {
            let chunk = chunks[index]
            if chunk.lastSeq >= next {
                switch chunk.content {
                case .records(let records):
                    records.withUnsafeBytes { raw in
                        var offset = 0
                        while offset < raw.count, next <= through, output.count - start < maxBytes {
                            guard
                                case .record(let record, let after) = JournalRecord.parse(
                                    raw, at: offset, verify: false)
                            else { return }
                            if record.seq == next {
                                LogLine.append(record, to: &output)
                                next += 1
                            }
                            offset = after
                        }
                    }
                case .texts(let time, let texts):
                    while next <= chunk.lastSeq, next <= through, output.count - start < maxBytes {
                        LogLine.append(seq: next, time: time, event: texts[Int(next - chunk.firstSeq)], to: &output)
                        next += 1
                    }
                }
            }
            index += 1
        }
        return next
    }
}
