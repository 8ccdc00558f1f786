/// Checks request lines for what docs/protocol.md calls `InvalidEncoding`: a NUL byte or invalid UTF-8.
enum LineEncoding {
    /// A message naming the first problem, or `nil` when the line is valid UTF-8 without NUL.
    static func problem(in line: ArraySlice<UInt8>) -> String? {
        if isPlainASCII(line) { return nil }
        var index = line.startIndex
        let end = line.endIndex
        while index < end {
            let byte = line[index]
            if byte == 0 { return "NUL byte at offset \(index - line.startIndex)" }
            if byte < 0x80 {
                index += 1
                continue
            }
            let length: Int
            let minimum: UInt32
            switch byte {
            case 0xC2...0xDF: (length, minimum) = (2, 0x80)
            case 0xE0...0xEF: (length, minimum) = (3, 0x800)
            case 0xF0...0xF4: (length, minimum) = (4, 0x10000)
            default: return "invalid UTF-8 at offset \(index - line.startIndex)"
            }
            guard end - index >= length else { return "truncated UTF-8 sequence at offset \(index - line.startIndex)" }
            var scalar = UInt32(byte) & (0xFF >> (length + 1))
            for continuation in line[(index + 1)..<(index + length)] {
                guard continuation & 0xC0 == 0x80 else {
                    return "invalid UTF-8 at offset \(index - line.startIndex)"
                }
                scalar = scalar << 6 | UInt32(continuation & 0x3F)
            }
            if scalar < minimum || scalar > 0x10FFFF || (0xD800...0xDFFF).contains(scalar) {
                return "invalid UTF-8 at offset \(index - line.startIndex)"
            }
            index += length
        }
        return nil
    }

    /// Whether every byte is ASCII and none is NUL, checked eight bytes at a time (the common case).
    private static func isPlainASCII(_ line: ArraySlice<UInt8>) -> Bool {
        line.withUnsafeBytes { raw in
            let highBits: UInt64 = 0x8080_8080_8080_8080
            let ones: UInt64 = 0x0101_0101_0101_0101
            var offset = 0
            while offset + 8 <= raw.count {
                let word = raw.loadUnaligned(fromByteOffset: offset, as: UInt64.self)
                // A set high bit is non-ASCII; (word - ones) & ~word & highBits is non-zero iff a byte is zero.
                if word & highBits != 0 || (word &- ones) & ~word & highBits != 0 { return false }
                offset += 8
            }
            while offset < raw.count {
                let byte = raw[offset]
                if byte == 0 || byte >= 0x80 { return false }
                offset += 1
            }
            return true
        }
    }
}
