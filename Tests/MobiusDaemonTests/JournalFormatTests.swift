import MobiusJSON
import MobiusSystem
import Testing

@testable import MobiusDaemon

/// The journal's byte formats: checksums, records, segment headers, snapshots, and the in-memory window.
@Suite("Journal: formats")
struct JournalFormatTests {
    @Test func crc32cMatchesTheStandardCheckValue() {
        #expect(CRC32C.checksum(Array("123456789".utf8)) == 0xE306_9283)
        #expect(CRC32C.checksum([]) == 0)
        // The 8-byte step and the byte step agree at every length and alignment.
        let bytes = (0..<100).map { UInt8(truncatingIfNeeded: $0 &* 37) }
        for length in 0..<bytes.count {
            let whole = CRC32C.checksum(Array(bytes[0..<length]))
            let split = bytes.withUnsafeBytes { raw in
                let head = CRC32C.checksum(UnsafeRawBufferPointer(rebasing: raw[0..<(length / 3)]))
                return CRC32C.checksum(UnsafeRawBufferPointer(rebasing: raw[(length / 3)..<length]), seed: head)
            }
            #expect(whole == split, "length \(length)")
        }
    }

    @Test func sealingAPasssRecordsGivesTheChecksummedRecords() {
        var checked: [UInt8] = []
        var pass = PassCommit(time: 42, expectedEvents: 3)
        let events: [JSONValue] = [["type": "increment"], [], ["a": ["b": "c d"]]]
        for (offset, event) in events.enumerated() {
            let seq = UInt64(10 + offset)
            JournalRecord.append(seq: seq, time: 42, encoding: event, to: &checked)
            if offset == 1 {
                pass.append(seq: seq, text: Array("[]".utf8)[...])
            } else {
                pass.append(seq: seq, encoding: event)
            }
        }
        #expect(pass.seqs == 10...12)
        var records = pass.takeRecords()
        #expect(pass.records.isEmpty, "taking leaves the pass empty")
        #expect(records != checked, "a pass's records carry no checksums until sealed")
        JournalRecord.seal(&records)
        #expect(records == checked)
        var empty: [UInt8] = []
        JournalRecord.seal(&empty)
        #expect(empty.isEmpty)
    }

    @Test func recordsRoundTripAndEveryCutOrFlipIsCaught() {
        var buffer: [UInt8] = []
        JournalRecord.append(seq: 7, time: 1_700_000_000_123_456_789, encoding: ["type": "increment"], to: &buffer)
        JournalRecord.append(seq: 8, time: -5, event: Array("[1,2]".utf8), to: &buffer)
        #expect(buffer.count == 24 + 20 + 24 + 5)
        buffer.withUnsafeBytes { raw in
            guard case .record(let first, let next) = JournalRecord.parse(raw, at: 0) else {
                Issue.record("no first record")
                return
            }
            #expect(first.seq == 7 && first.time == 1_700_000_000_123_456_789 && next == 44)
            #expect((try? JSONValue(parsing: first.event)) == ["type": "increment"])
            guard case .record(let second, let end) = JournalRecord.parse(raw, at: next) else {
                Issue.record("no second record")
                return
            }
            #expect(second.seq == 8 && second.time == -5 && end == buffer.count)
        }
        // Every prefix that cuts the last record is incomplete, never damaged or a record.
        for cut in 44..<buffer.count {
            let outcome = Array(buffer[0..<cut]).withUnsafeBytes { JournalRecord.parse($0, at: 44) }
            guard case .incomplete = outcome else {
                Issue.record("cut at \(cut): \(outcome)")
                continue
            }
        }
        // Every single flipped bit of a whole record is damage (or, in the length, an incomplete record).
        for index in 0..<44 {
            for bit in 0..<8 {
                var flipped = Array(buffer[0..<44])
                flipped[index] ^= UInt8(1 << bit)
                let outcome = flipped.withUnsafeBytes { JournalRecord.parse($0, at: 0) }
                if case .record = outcome { Issue.record("byte \(index) bit \(bit) went unnoticed") }
            }
        }
    }

    @Test func logLinesFormatSeqTimeAndTheEventBytes() {
        var buffer: [UInt8] = []
        JournalRecord.append(seq: 3, time: 1_764_605_494_643_183_999, encoding: ["a": [1, "x"]], to: &buffer)
        var line: [UInt8] = []
        buffer.withUnsafeBytes { raw in
            if case .record(let record, _) = JournalRecord.parse(raw, at: 0) { LogLine.append(record, to: &line) }
        }
        #expect(
            String(decoding: line, as: UTF8.self)
                == #"{"seq":3,"time":"2025-12-01T16:11:34.643183Z","event":{"a":[1,"x"]}}"# + "\n")
        #expect(
            String(decoding: LogLine.end(seq: 9, compacted: true), as: UTF8.self)
                == #"{"end":true,"seq":9,"compacted":true}"# + "\n")
    }

    @Test func segmentAndSnapshotNamesSortAsNumbers() {
        #expect(JournalSegment.name(firstSeq: 42) == "00000000000000000042.journal")
        #expect(JournalSegment.firstSeq(ofName: "00000000000000000042.journal") == 42)
        #expect(JournalSegment.firstSeq(ofName: "42.journal") == nil)
        #expect(JournalSegment.firstSeq(ofName: "0000000000000000004x.journal") == nil)
        #expect(SnapshotFile.seq(ofName: SnapshotFile.name(seq: UInt64.max)) == UInt64.max)
        #expect(SnapshotFile.seq(ofName: "snapshot.tmp") == nil)
    }

    @Test func snapshotsRoundTripAndRefuseDamage() throws {
        let model: JSONValue = ["count": 3, "nested": [[[["deep"]]]]]
        let snapshot = SnapshotFile(epoch: "0123456789abcdef", seq: 99, time: 12, model: model)
        let bytes = snapshot.encoded()
        let decoded = try SnapshotFile.decode(bytes)
        #expect(decoded.epoch == "0123456789abcdef" && decoded.seq == 99 && decoded.time == 12)
        #expect(decoded.model == model)
        #expect(throws: SnapshotFile.Problem.self) { try SnapshotFile.decode(Array(bytes.dropLast())) }
        var flipped = bytes
        flipped[bytes.count - 3] ^= 1
        #expect(throws: SnapshotFile.Problem.self) { try SnapshotFile.decode(flipped) }
        #expect(throws: SnapshotFile.Problem.self) { try SnapshotFile.decode(Array("MOBIUSS1".utf8)) }
    }

    @Test func theWindowKeepsTheNewestPassesWithinItsBound() {
        let window = RecentRecords(limit: 200)
        for seq in UInt64(1)...20 {
            var records: [UInt8] = []
            JournalRecord.append(seq: seq, time: 0, encoding: .number(JSONNumber(seq)), to: &records)
            window.append(&records, firstSeq: seq, lastSeq: seq)
        }
        let first = window.firstSeq ?? 0
        #expect(first > 1 && first <= 20, "old passes were dropped: \(first)")
        var output: [UInt8] = []
        #expect(window.appendLines(from: first - 1, through: 20, maxBytes: 1 << 20, to: &output) == nil, "not held")
        #expect(window.appendLines(from: first, through: 20, maxBytes: 1 << 20, to: &output) == 21)
        #expect(output.split(separator: 0x0A).count == Int(21 - first))
        output.removeAll()
        #expect(window.appendLines(from: 19, through: 19, maxBytes: 1 << 20, to: &output) == 20, "stops at through")
        #expect(RecentRecords(limit: 0).firstSeq == nil)
    }

    @Test func smallPassesShareChunksAndEverySeqIsServedOnce() {
        let window = RecentRecords(limit: 1 << 20)
        // One-event passes, then a gap in the seqs (an undone pass gives its seqs again, so a gap never happens in
        // the daemon, but the window must not join records across one), then a pass of three.
        var passes: [ClosedRange<UInt64>] = (1...50).map { $0...$0 }
        passes += [60...60, 61...63]
        // One buffer for every pass, as the loop reuses it: what the window copied must not change when the buffer
        // is emptied and written again, and a pass the window took over leaves it empty.
        var records: [UInt8] = []
        for range in passes {
            records.removeAll(keepingCapacity: true)
            for seq in range {
                JournalRecord.append(seq: seq, time: 0, encoding: .number(JSONNumber(seq)), to: &records)
            }
            let written = records.count
            window.append(&records, firstSeq: range.lowerBound, lastSeq: range.upperBound)
            #expect(records.isEmpty || records.count == written, "left as it was, or taken over")
        }
        #expect(window.firstSeq == 1)
        var output: [UInt8] = []
        #expect(window.appendLines(from: 1, through: 50, maxBytes: 1 << 20, to: &output) == 51)
        let seqs = output.split(separator: 0x0A).compactMap { line in
            (try? JSONValue(parsing: Array(line)))?["seq"]?.int64Value
        }
        #expect(seqs == Array(1...50))
        output.removeAll()
        #expect(window.appendLines(from: 25, through: 25, maxBytes: 1 << 20, to: &output) == 26)
        #expect(output.split(separator: 0x0A).count == 1, "a seq inside a shared chunk alone")
        output.removeAll()
        #expect(window.appendLines(from: 60, through: 63, maxBytes: 1 << 20, to: &output) == 64)
        #expect(output.split(separator: 0x0A).count == 4)
    }
}
