import MobiusJSON

/// One request line, classified per PROTOCOL.md 1.2.
enum RequestLine {
    /// Empty or whitespace only: ignored, but counted as a line.
    case blank
    /// A bare JSON value: an event. The text is parsed by the loop thread, which has spare capacity; the I/O thread
    /// only classifies lines.
    case event(ArraySlice<UInt8>)
    /// `NAME` or `NAME <argument>`; the argument is trimmed and may be empty.
    case command(name: String, argument: ArraySlice<UInt8>)
    /// The line cannot be used: the error reply's code and message, and whether the line tried to be an event
    /// (it starts like JSON, or is `send …`).
    case invalid(ErrorCode, String, eventLike: Bool)

    /// Whether this line is, or tries to be, an event (for `reply errors|off` and the `rejected` counter).
    var isEventLike: Bool {
        switch self {
        case .event: return true
        case .invalid(_, _, let eventLike): return eventLike
        case .command(let name, _): return name == "send"
        case .blank: return false
        }
    }

    /// Classifies `line` (without its `\n`; a trailing `\r` is already removed).
    static func classify(_ line: ArraySlice<UInt8>) -> RequestLine {
        if let problem = LineEncoding.problem(in: line) {
            return .invalid(.invalidEncoding, problem, eventLike: looksLikeEvent(line.trimmingJSONWhitespace()))
        }
        let trimmed = line.trimmingJSONWhitespace()
        guard let first = trimmed.first else { return .blank }
        switch first {
        case UInt8(ascii: "{"), UInt8(ascii: "["), UInt8(ascii: "\""), UInt8(ascii: "-"),
            UInt8(ascii: "0")...UInt8(ascii: "9"):
            return .event(trimmed)
        case UInt8(ascii: "a")...UInt8(ascii: "z"):
            let nameEnd = trimmed.firstIndex(where: { $0 == 0x20 || $0 == 0x09 }) ?? trimmed.endIndex
            let name = String(decoding: trimmed[trimmed.startIndex..<nameEnd], as: UTF8.self)
            if name == "true" || name == "false" || name == "null" {
                return .event(trimmed)
            }
            return .command(name: name, argument: trimmed[nameEnd...].trimmingJSONWhitespace())
        default:
            let word = String(decoding: trimmed.prefix(32), as: UTF8.self)
            return .invalid(.unknownCommand, "unknown command \"\(word)\"; send `help` for the list", eventLike: false)
        }
    }

    /// Whether a line (valid or not) starts like an event: JSON's first bytes, a JSON literal, or `send`.
    static func looksLikeEvent(_ trimmed: ArraySlice<UInt8>) -> Bool {
        guard let first = trimmed.first else { return false }
        switch first {
        case UInt8(ascii: "{"), UInt8(ascii: "["), UInt8(ascii: "\""), UInt8(ascii: "-"),
            UInt8(ascii: "0")...UInt8(ascii: "9"):
            return true
        case UInt8(ascii: "a")...UInt8(ascii: "z"):
            let word = trimmed.prefix { $0 != 0x20 && $0 != 0x09 }
            return ["true", "false", "null", "send"].contains { Array($0.utf8)[...] == word }
        default:
            return false
        }
    }
}

extension ArraySlice<UInt8> {
    /// The slice without leading and trailing JSON whitespace (space, tab, CR, LF).
    func trimmingJSONWhitespace() -> ArraySlice<UInt8> {
        func isSpace(_ byte: UInt8) -> Bool { byte == 0x20 || byte == 0x09 || byte == 0x0D || byte == 0x0A }
        guard let start = firstIndex(where: { !isSpace($0) }) else { return self[endIndex...] }
        let end = lastIndex(where: { !isSpace($0) })!
        return self[start...end]
    }
}

/// Checks request lines for what PROTOCOL.md calls `InvalidEncoding`: a NUL byte or invalid UTF-8.
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
