/// The `log` stream's items (PROTOCOL.md 1.2), written straight from journal records.
enum LogLine {
    /// `{"seq":N,"time":"RFC3339","event":E}` and a newline.
    static func append(_ record: JournalRecord, to output: inout [UInt8]) {
        append(seq: record.seq, time: record.time, event: record.event, to: &output)
    }

    /// The same item from its parts (`event` is compact JSON).
    static func append(seq: UInt64, time: Int64, event: some Collection<UInt8>, to output: inout [UInt8]) {
        output.append(contentsOf: #"{"seq":"#.utf8)
        output.append(contentsOf: String(seq).utf8)
        output.append(contentsOf: #","time":""#.utf8)
        let seconds = time >= 0 ? time / 1_000_000_000 : (time + 1) / 1_000_000_000 - 1
        let nanoseconds = time - seconds * 1_000_000_000
        output.append(
            contentsOf: RFC3339.format(seconds: Int(seconds), nanoseconds: Int(nanoseconds), fractionDigits: 6).utf8)
        output.append(contentsOf: #"","event":"#.utf8)
        output.append(contentsOf: event)
        output.append(contentsOf: "}\n".utf8)
    }

    /// `{"end":true,"seq":LAST}` (with `"compacted":true` when the rest of the history was compacted away while
    /// the reader was behind).
    static func end(seq: UInt64, compacted: Bool) -> [UInt8] {
        Array((#"{"end":true,"seq":\#(seq)"# + (compacted ? #","compacted":true}"# : "}") + "\n").utf8)
    }
}
