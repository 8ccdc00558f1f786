import MobiusJSON

/// One journaled event as stored in a segment, little-endian:
///
/// | offset | size | field |
/// |---:|---:|---|
/// | 0 | 4 | length of the event bytes |
/// | 4 | 4 | CRC-32C of bytes 8 ..< 24 + length (seq, time, event) |
/// | 8 | 8 | seq |
/// | 16 | 8 | time: nanoseconds since 1970 (UTC) |
/// | 24 | length | the event as compact JSON |
struct JournalRecord {
    let seq: UInt64
    /// Nanoseconds since 1970-01-01 UTC when its pass was written.
    let time: Int64
    /// The event's compact JSON (a slice of the buffer it was read from).
    let event: UnsafeRawBufferPointer

    /// Bytes before the event.
    static let headerSize = 24
    /// The largest event a record may carry; a larger length field means damage, not a record.
    static let maxEventBytes = 1 << 30

    /// Appends a record for `event` (compact JSON) to `buffer`; without `checksum` the CRC field stays 0 (records
    /// that only ever live in memory).
    static func append(
        seq: UInt64, time: Int64, event: some Collection<UInt8>, to buffer: inout [UInt8], checksum: Bool = true
    ) {
        let start = buffer.count
        appendHeader(length: event.count, seq: seq, time: time, to: &buffer)
        buffer.append(contentsOf: event)
        guard checksum else { return }
        let crc = buffer.withUnsafeBytes { raw in
            CRC32C.checksum(UnsafeRawBufferPointer(rebasing: raw[(start + 8)...]))
        }
        buffer.withUnsafeMutableBytes { raw in
            raw.storeBytes(of: crc.littleEndian, toByteOffset: start + 4, as: UInt32.self)
        }
    }

    /// The four header fields in one append (one copy of 24 bytes, not four small ones: this runs per event). The
    /// tuple's fields lie at offsets 0, 4, 8 and 16, as in the table above.
    private static func appendHeader(length: Int, seq: UInt64, time: Int64, to buffer: inout [UInt8]) {
        let header = (
            UInt32(truncatingIfNeeded: length).littleEndian, UInt32(0), seq.littleEndian,
            UInt64(bitPattern: time).littleEndian
        )
        withUnsafeBytes(of: header) { buffer.append(contentsOf: $0) }
    }

    /// Appends a record for an event given as JSON, encoded straight into `buffer` (no copy of its bytes). Without
    /// `checksum` the CRC field stays 0: for records that only ever live in memory (`--ephemeral`).
    static func append(
        seq: UInt64, time: Int64, encoding event: JSONValue, to buffer: inout [UInt8], checksum: Bool = true
    ) {
        let start = buffer.count
        appendHeader(length: 0, seq: seq, time: time, to: &buffer)
        event.encode(into: &buffer)
        let length = UInt32(truncatingIfNeeded: buffer.count - start - headerSize)
        buffer.withUnsafeMutableBytes { raw in
            raw.storeBytes(of: length.littleEndian, toByteOffset: start, as: UInt32.self)
            guard checksum else { return }
            let crc = CRC32C.checksum(UnsafeRawBufferPointer(rebasing: raw[(start + 8)...]))
            raw.storeBytes(of: crc.littleEndian, toByteOffset: start + 4, as: UInt32.self)
        }
    }

    /// Fills the checksum field of every record in `records` (records appended with `checksum: false`, one after
    /// another), for records that go to disk.
    static func seal(_ records: inout [UInt8]) {
        records.withUnsafeMutableBytes { raw in
            var offset = 0
            while offset + headerSize <= raw.count {
                let length = Int(raw.loadUnaligned(fromByteOffset: offset, as: UInt32.self).littleEndian)
                let end = offset + headerSize + length
                precondition(end <= raw.count, "a record runs past the end of its pass's records")
                let crc = CRC32C.checksum(UnsafeRawBufferPointer(rebasing: raw[(offset + 8)..<end]))
                raw.storeBytes(of: crc.littleEndian, toByteOffset: offset + 4, as: UInt32.self)
                offset = end
            }
        }
    }

    static func appendInteger<Integer: FixedWidthInteger>(_ value: Integer, to buffer: inout [UInt8]) {
        withUnsafeBytes(of: value.littleEndian) { buffer.append(contentsOf: $0) }
    }

    /// What is at `offset` of `bytes`.
    enum Parse {
        /// A whole record with a good checksum, and the offset after it.
        case record(JournalRecord, next: Int)
        /// The bytes end inside the record (a torn write, when at the end of the last segment).
        case incomplete
        /// The record is whole but its checksum or length is wrong.
        case damaged(String)
        /// A whole header of zeros: the records end here, and the segment was zero-filled ahead of them
        /// (`JournalWriter`). No record's header is all zeros: its length and seq are never 0. (Fewer than a
        /// header's bytes of zeros are `incomplete`: they may be the start of a record cut off by a read.)
        case end
    }

    /// Whether every byte of `bytes` from `offset` on is zero (a segment's zero-filled tail).
    static func isZero(_ bytes: UnsafeRawBufferPointer, from offset: Int) -> Bool {
        var index = offset
        while index + 8 <= bytes.count {
            if bytes.loadUnaligned(fromByteOffset: index, as: UInt64.self) != 0 { return false }
            index += 8
        }
        while index < bytes.count {
            if bytes[index] != 0 { return false }
            index += 1
        }
        return true
    }

    /// The first record from `offset` on with a good checksum and a seq in `seqs`, wherever it starts: where the
    /// records after damage resume. A segment's records follow each other from `firstSeq` and take at least 25
    /// bytes each, so a candidate's seq is also bounded by its offset; that and a length that fits leave few
    /// candidates whose checksum is computed, and nothing is allocated. Runs of zeros are skipped a word at a time.
    /// Without `firstSeq` (a segment whose first seq is not known) only `seqs` bounds a candidate's seq.
    static func find(
        in bytes: UnsafeRawBufferPointer, from offset: Int, seqs: ClosedRange<UInt64>, firstSeq: UInt64?
    ) -> (record: JournalRecord, offset: Int)? {
        var candidate = offset
        while candidate + headerSize < bytes.count {
            let seq = bytes.loadUnaligned(fromByteOffset: candidate + 8, as: UInt64.self).littleEndian
            if seq == 0 {
                // A candidate's seq field must hold the next non-zero byte.
                candidate = max(candidate + 1, firstNonZero(bytes, from: candidate + 16) - 15)
                continue
            }
            let reachable = firstSeq.map {
                $0 &+ UInt64(max(candidate - JournalSegment.headerSize, 0) / (headerSize + 1))
            }
            if seqs.contains(seq) && seq <= reachable ?? .max,
                case .record(let record, _) = parse(bytes, at: candidate)
            {
                return (record, candidate)
            }
            candidate += 1
        }
        return nil
    }

    /// The index of the first non-zero byte of `bytes` from `offset` on, or `bytes.count`.
    private static func firstNonZero(_ bytes: UnsafeRawBufferPointer, from offset: Int) -> Int {
        var index = offset
        while index + 8 <= bytes.count && bytes.loadUnaligned(fromByteOffset: index, as: UInt64.self) == 0 {
            index += 8
        }
        while index < bytes.count && bytes[index] == 0 { index += 1 }
        return index
    }

    /// Reads the record at `offset`; `verify: false` skips the checksum (records the daemon holds in memory).
    static func parse(_ bytes: UnsafeRawBufferPointer, at offset: Int, verify: Bool = true) -> Parse {
        let available = bytes.count - offset
        guard available >= headerSize else { return .incomplete }
        if isZero(UnsafeRawBufferPointer(rebasing: bytes[offset..<(offset + headerSize)]), from: 0) { return .end }
        let length = Int(bytes.loadUnaligned(fromByteOffset: offset, as: UInt32.self).littleEndian)
        guard length <= maxEventBytes else { return .damaged("a record length of \(length) bytes") }
        guard available >= headerSize + length else { return .incomplete }
        if verify {
            let stored = bytes.loadUnaligned(fromByteOffset: offset + 4, as: UInt32.self).littleEndian
            let computed = CRC32C.checksum(
                UnsafeRawBufferPointer(rebasing: bytes[(offset + 8)..<(offset + 24 + length)]))
            guard stored == computed else { return .damaged("a checksum mismatch") }
        }
        let seq = bytes.loadUnaligned(fromByteOffset: offset + 8, as: UInt64.self).littleEndian
        let time = Int64(bitPattern: bytes.loadUnaligned(fromByteOffset: offset + 16, as: UInt64.self).littleEndian)
        let event = UnsafeRawBufferPointer(rebasing: bytes[(offset + 24)..<(offset + 24 + length)])
        return .record(JournalRecord(seq: seq, time: time, event: event), next: offset + headerSize + length)
    }
}
