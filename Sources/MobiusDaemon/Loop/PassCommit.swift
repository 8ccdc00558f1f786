import MobiusJSON
import MobiusSystem

/// The events a pass applied, as journal records, handed to the commit hook before anything of the pass leaves the
/// loop. The pass writes each record as it applies the event (from the text a client sent when there is one), so
/// committing needs no second walk over the events.
struct PassCommit: Sendable {
    /// The applied events in seq order, in the journal's record format (`JournalRecord`), with the checksum fields
    /// still 0: `JournalRecord.seal` fills them where records go to disk.
    private(set) var records: [UInt8] = []
    /// The first and last seq recorded; `nil` for a pass of reads only.
    private(set) var seqs: ClosedRange<UInt64>?
    /// Every record's time: when the pass was computed, in nanoseconds since 1970 (UTC).
    let time: Int64
    /// The models right after the pass's last `models.count` events, in order, while a `log {"models":true}` stream
    /// at the head takes them (`PassWork.recordModels`).
    private(set) var models: [JSONValue] = []

    /// Room is made for `expectedEvents` records of a typical size up front, so a big pass does not copy its
    /// records as they grow. `buffer` is an empty array whose capacity is reused (an earlier pass's, see
    /// `takeRecords`).
    init(time: Int64 = PassCommit.now(), expectedEvents: Int = 0, buffer: [UInt8] = []) {
        self.time = time
        records = buffer
        records.reserveCapacity(expectedEvents * 48)
    }

    /// Records an event the client sent as compact JSON `text`.
    mutating func append(seq: UInt64, text: some Collection<UInt8>) {
        JournalRecord.append(seq: seq, time: time, event: text, to: &records, checksum: false)
        extend(to: seq)
    }

    /// Records an event given as JSON, encoded straight into the records.
    mutating func append(seq: UInt64, encoding event: JSONValue) {
        JournalRecord.append(seq: seq, time: time, encoding: event, to: &records, checksum: false)
        extend(to: seq)
    }

    /// Records the model right after the event recorded last.
    mutating func appendModel(_ model: JSONValue) {
        models.append(model)
    }

    /// Hands the recorded models over, leaving none.
    mutating func takeModels() -> [JSONValue] {
        var taken: [JSONValue] = []
        swap(&taken, &models)
        return taken
    }

    /// Hands the records over, leaving this empty (so the caller owns the only reference and can seal them in
    /// place).
    mutating func takeRecords() -> [UInt8] {
        var taken: [UInt8] = []
        swap(&taken, &records)
        return taken
    }

    /// Gives back the buffer of records taken and committed, emptied, so that the loop can reuse its capacity for
    /// the next pass (one allocation less per pass; a buffer the window took over comes back without capacity).
    mutating func returnBuffer(_ buffer: inout [UInt8]) {
        buffer.empty()
        swap(&records, &buffer)
    }

    private mutating func extend(to seq: UInt64) {
        seqs = (seqs?.lowerBound ?? seq)...seq
    }

    /// Wall-clock time now, in nanoseconds since 1970 (UTC).
    static func now() -> Int64 {
        let (seconds, nanoseconds) = SystemProcess.wallClock()
        return Int64(seconds) * 1_000_000_000 + Int64(nanoseconds)
    }
}
