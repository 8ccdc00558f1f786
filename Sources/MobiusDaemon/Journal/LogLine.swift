import MobiusJSON

/// The `log` stream's items (docs/protocol.md 1.2), written straight from journal records.
enum LogLine {
    /// `{"seq":N,"time":"RFC3339","event":E}` and a newline.
    static func append(_ record: JournalRecord, to output: inout [UInt8]) {
        appendFields(record, to: &output)
        output.append(contentsOf: "}\n".utf8)
    }

    /// `{"seq":N,"time":"RFC3339","event":E,"model":M}` and a newline: an item of `log {"models":true}`, `model` being
    /// the model right after the event.
    static func append(_ record: JournalRecord, model: JSONValue, to output: inout [UInt8]) {
        appendFields(record, to: &output)
        output.append(contentsOf: #","model":"#.utf8)
        model.encode(into: &output)
        output.append(contentsOf: "}\n".utf8)
    }

    /// The item's members up to the event, without the closing brace.
    private static func appendFields(_ record: JournalRecord, to output: inout [UInt8]) {
        output.append(contentsOf: #"{"seq":"#.utf8)
        output.append(contentsOf: String(record.seq).utf8)
        output.append(contentsOf: #","time":""#.utf8)
        output.append(contentsOf: RFC3339.format(nanosecondsSince1970: record.time, fractionDigits: 6).utf8)
        output.append(contentsOf: #"","event":"#.utf8)
        output.append(contentsOf: record.event)
    }

    /// `{"end":true,"seq":LAST}` (with `"compacted":true` when the rest of the history was compacted away while
    /// the reader was behind).
    static func end(seq: UInt64, compacted: Bool) -> [UInt8] {
        Array((#"{"end":true,"seq":\#(seq)"# + (compacted ? #","compacted":true}"# : "}") + "\n").utf8)
    }

    /// `{"end":true,"seq":LAST,"error":{"code":C,"message":M}}`: the stream cannot go on for a reason other than
    /// compaction or damage (the models of `log {"models":true}` cannot be had now).
    static func end(seq: UInt64, error code: ErrorCode, _ message: String) -> [UInt8] {
        let error: JSONValue = .object(JSONObject([("code", .string(code.rawValue)), ("message", .string(message))]))
        return JSONLine.object([("end", true), ("seq", .number(JSONNumber(seq))), ("error", error)])
    }

    /// `{"end":true,"seq":LAST,"damaged":{"from":A,"through":B},"error":{…}}`: the stream reached seqs the journal
    /// cannot serve; a reader goes on with `since` B.
    static func end(seq: UInt64, damaged damage: JournalCatalog.Damage) -> [UInt8] {
        let message =
            "the journal cannot serve seq \(damage.firstSeq)...\(damage.lastSeq): \(damage.problem); "
            + "resume with since \(damage.lastSeq) for the events after them"
        let range: JSONValue = .object(
            JSONObject([
                ("from", .number(JSONNumber(damage.firstSeq))), ("through", .number(JSONNumber(damage.lastSeq))),
            ]))
        let error: JSONValue = .object(
            JSONObject([("code", .string(ErrorCode.journalDamaged.rawValue)), ("message", .string(message))]))
        return JSONLine.object([("end", true), ("seq", .number(JSONNumber(seq))), ("damaged", range), ("error", error)])
    }
}
