/// Naming and the header of journal segment files (`<first seq, 20 digits>.journal`): 8 bytes `MOBIUSJ1`, then the
/// seq of the segment's first record (little-endian UInt64), then records.
enum JournalSegment {
    static let magic: [UInt8] = Array("MOBIUSJ1".utf8)
    static let headerSize = 16
    static let suffix = ".journal"

    /// The file name of the segment whose first record is `firstSeq`.
    static func name(firstSeq: UInt64) -> String {
        StateFileName.numbered(firstSeq) + suffix
    }

    /// The first seq a segment file name stands for, or `nil` when it is not a segment's name (seqs start at 1).
    static func firstSeq(ofName name: String) -> UInt64? {
        StateFileName.number(in: name, suffix: suffix).flatMap { $0 > 0 ? $0 : nil }
    }

    /// The header of a segment starting at `firstSeq`.
    static func header(firstSeq: UInt64) -> [UInt8] {
        var bytes = magic
        JournalRecord.appendInteger(firstSeq, to: &bytes)
        return bytes
    }

    /// The first seq in a header, or `nil` when the bytes are not a whole, valid header.
    static func firstSeq(inHeader bytes: UnsafeRawBufferPointer) -> UInt64? {
        guard bytes.count >= headerSize, bytes.prefix(8).elementsEqual(magic) else { return nil }
        return bytes.loadUnaligned(fromByteOffset: 8, as: UInt64.self).littleEndian
    }
}
