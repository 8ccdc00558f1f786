import MobiusJSON

/// The models right after the newest committed events, as the loop computed them, kept while a
/// `log {"models":true}` stream is at the head: such a stream sends the loop's own models with the records of
/// `RecentRecords` instead of replaying them. At most `limit` models, the newest; owned by the reactor thread.
struct RecentModels {
    /// `(seq, model)` in seq order from `head`; runs of seqs may have gaps (passes taken while nobody streamed).
    private var entries: [(seq: UInt64, model: JSONValue)] = []
    private var head = 0

    /// How many models are kept: a pass with more events leaves its older ones to a replay.
    static var limit: Int { 1024 }

    var isEmpty: Bool { head == entries.count }

    /// Keeps the models right after the events `lastSeq - models.count + 1 ... lastSeq`.
    mutating func append(_ models: [JSONValue], lastSeq: UInt64) {
        guard !models.isEmpty else { return }
        let kept = models.suffix(Self.limit)
        var seq = lastSeq - UInt64(kept.count) + 1
        if let newest = entries.last, newest.seq >= seq { removeAll() }
        for model in kept {
            entries.append((seq, model))
            seq += 1
        }
        let excess = entries.count - head - Self.limit
        if excess > 0 { head += excess }
        if head > Self.limit && head * 2 > entries.count {
            entries.removeFirst(head)
            head = 0
        }
    }

    /// The model right after `seq`, if kept.
    func model(at seq: UInt64) -> JSONValue? {
        guard !isEmpty, seq >= entries[head].seq else { return nil }
        // Usually one run without gaps: the offset from the first finds it at once.
        let guess = head + Int(clamping: seq - entries[head].seq)
        if guess < entries.count, entries[guess].seq == seq { return entries[guess].model }
        var low = head
        var high = entries.count
        while low < high {
            let middle = (low + high) / 2
            if entries[middle].seq < seq { low = middle + 1 } else { high = middle }
        }
        // Not a `?:` with `nil`: JSONValue takes the nil literal, which would answer a JSON null.
        guard low < entries.count, entries[low].seq == seq else { return nil }
        return entries[low].model
    }

    mutating func removeAll() {
        entries.removeAll()
        head = 0
    }
}
