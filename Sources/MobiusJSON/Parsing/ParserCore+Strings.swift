extension ParserCore {
    /// Parses a string starting at its opening quote.
    ///
    /// The fast path scans printable ASCII without escapes and makes the `String` straight
    /// from the buffer. Escapes switch to copying segments into `scratch`; non-ASCII bytes
    /// are validated as UTF-8 in place.
    mutating func parseString() throws(JSONParseError) -> String {
        position += 1
        let start = position
        while position < count {
            let byte = base[position]
            if byte == UInt8(ascii: "\"") {
                let text = ParserCore.makeString(base + start, count: position - start)
                position += 1
                return text
            }
            if byte == UInt8(ascii: "\\") || byte < 0x20 || byte >= 0x80 { break }
            position += 1
        }
        return try parseStringSlowly(from: start)
    }

    /// A `String` from bytes already checked to be well-formed UTF-8.
    @inline(__always)
    static func makeString(_ start: UnsafePointer<UInt8>, count: Int) -> String {
        if count == 0 { return "" }
        return String(unsafeUninitializedCapacity: count) { buffer in
            buffer.baseAddress!.initialize(from: start, count: count)
            return count
        }
    }

    private mutating func parseStringSlowly(from start: Int) throws(JSONParseError) -> String {
        var segmentStart = start
        var escaped = false
        while true {
            guard position < count else {
                throw JSONParseError(kind: .unexpectedEnd, offset: position, message: "unterminated string")
            }
            let byte = base[position]
            if byte == UInt8(ascii: "\"") { break }
            if byte == UInt8(ascii: "\\") {
                if !escaped {
                    scratch.removeAll(keepingCapacity: true)
                    escaped = true
                }
                scratch.append(
                    contentsOf: UnsafeBufferPointer(start: base + segmentStart, count: position - segmentStart))
                try decodeEscape()
                segmentStart = position
            } else if byte < 0x20 {
                throw JSONParseError(
                    kind: .controlCharacter, offset: position,
                    message: "unescaped control character 0x\(ParserCore.hex(byte)) in string")
            } else if byte < 0x80 {
                position += 1
            } else {
                let length = utf8SequenceLength(at: position)
                guard length > 0 else {
                    throw JSONParseError(kind: .invalidUTF8, offset: position, message: "invalid UTF-8")
                }
                position += length
            }
        }
        let segment = UnsafeBufferPointer(start: base + segmentStart, count: position - segmentStart)
        position += 1
        guard escaped else {
            return ParserCore.makeString(base + start, count: position - 1 - start)
        }
        scratch.append(contentsOf: segment)
        return scratch.withUnsafeBufferPointer { ParserCore.makeString($0.baseAddress!, count: $0.count) }
    }

    /// Decodes the escape at `position` (a backslash) into `scratch`.
    private mutating func decodeEscape() throws(JSONParseError) {
        let escapeOffset = position
        position += 1
        guard position < count else {
            throw JSONParseError(kind: .unexpectedEnd, offset: position, message: "unterminated string")
        }
        let byte = base[position]
        position += 1
        switch byte {
        case UInt8(ascii: "\""), UInt8(ascii: "\\"), UInt8(ascii: "/"): scratch.append(byte)
        case UInt8(ascii: "b"): scratch.append(0x08)
        case UInt8(ascii: "f"): scratch.append(0x0C)
        case UInt8(ascii: "n"): scratch.append(0x0A)
        case UInt8(ascii: "r"): scratch.append(0x0D)
        case UInt8(ascii: "t"): scratch.append(0x09)
        case UInt8(ascii: "u"):
            let unit = try readHex4()
            var scalar = UInt32(unit)
            if unit >= 0xD800 && unit <= 0xDBFF {
                guard position + 1 < count, base[position] == UInt8(ascii: "\\"),
                    base[position + 1] == UInt8(ascii: "u")
                else { throw loneSurrogate(unit, at: escapeOffset) }
                position += 2
                let low = try readHex4()
                guard low >= 0xDC00 && low <= 0xDFFF else { throw loneSurrogate(unit, at: escapeOffset) }
                scalar = 0x10000 + ((UInt32(unit) - 0xD800) << 10) + (UInt32(low) - 0xDC00)
            } else if unit >= 0xDC00 && unit <= 0xDFFF {
                throw loneSurrogate(unit, at: escapeOffset)
            }
            appendUTF8(scalar)
        default:
            position -= 1
            let shown = position < count ? (subject(at: position) ?? "invalid UTF-8") : "end of input"
            throw JSONParseError(
                kind: .invalidEscape, offset: escapeOffset, message: "invalid escape: backslash before \(shown)")
        }
    }

    private mutating func readHex4() throws(JSONParseError) -> UInt16 {
        var value: UInt16 = 0
        for _ in 0..<4 {
            guard position < count else {
                throw JSONParseError(kind: .unexpectedEnd, offset: position, message: "unterminated \\u escape")
            }
            let byte = base[position]
            let digit: UInt8
            switch byte {
            case UInt8(ascii: "0")...UInt8(ascii: "9"): digit = byte - UInt8(ascii: "0")
            case UInt8(ascii: "a")...UInt8(ascii: "f"): digit = byte - UInt8(ascii: "a") + 10
            case UInt8(ascii: "A")...UInt8(ascii: "F"): digit = byte - UInt8(ascii: "A") + 10
            default:
                throw JSONParseError(
                    kind: .invalidEscape, offset: position,
                    message: "invalid \\u escape: \(subject(at: position) ?? "invalid UTF-8") is not a hex digit")
            }
            value = value << 4 | UInt16(digit)
            position += 1
        }
        return value
    }

    private func loneSurrogate(_ unit: UInt16, at offset: Int) -> JSONParseError {
        let hex = ParserCore.hex(UInt8(unit >> 8)) + ParserCore.hex(UInt8(unit & 0xFF))
        return JSONParseError(kind: .loneSurrogate, offset: offset, message: "lone surrogate \\u\(hex.lowercased())")
    }

    private mutating func appendUTF8(_ scalar: UInt32) {
        switch scalar {
        case 0..<0x80:
            scratch.append(UInt8(scalar))
        case 0x80..<0x800:
            scratch.append(0xC0 | UInt8(scalar >> 6))
            scratch.append(0x80 | UInt8(scalar & 0x3F))
        case 0x800..<0x10000:
            scratch.append(0xE0 | UInt8(scalar >> 12))
            scratch.append(0x80 | UInt8((scalar >> 6) & 0x3F))
            scratch.append(0x80 | UInt8(scalar & 0x3F))
        default:
            scratch.append(0xF0 | UInt8(scalar >> 18))
            scratch.append(0x80 | UInt8((scalar >> 12) & 0x3F))
            scratch.append(0x80 | UInt8((scalar >> 6) & 0x3F))
            scratch.append(0x80 | UInt8(scalar & 0x3F))
        }
    }

    /// The length of the well-formed UTF-8 sequence starting at `offset` (Unicode table
    /// 3-7: no overlong forms, no surrogates, nothing above U+10FFFF), or 0 when it is not one.
    func utf8SequenceLength(at offset: Int) -> Int {
        let lead = base[offset]
        @inline(__always)
        func continuation(_ index: Int, _ low: UInt8 = 0x80, _ high: UInt8 = 0xBF) -> Bool {
            index < count && base[index] >= low && base[index] <= high
        }
        switch lead {
        case 0x00...0x7F:
            return 1
        case 0xC2...0xDF:
            return continuation(offset + 1) ? 2 : 0
        case 0xE0:
            return continuation(offset + 1, 0xA0) && continuation(offset + 2) ? 3 : 0
        case 0xE1...0xEC, 0xEE...0xEF:
            return continuation(offset + 1) && continuation(offset + 2) ? 3 : 0
        case 0xED:
            return continuation(offset + 1, 0x80, 0x9F) && continuation(offset + 2) ? 3 : 0
        case 0xF0:
            return continuation(offset + 1, 0x90) && continuation(offset + 2) && continuation(offset + 3) ? 4 : 0
        case 0xF1...0xF3:
            return continuation(offset + 1) && continuation(offset + 2) && continuation(offset + 3) ? 4 : 0
        case 0xF4:
            return continuation(offset + 1, 0x80, 0x8F) && continuation(offset + 2) && continuation(offset + 3) ? 4 : 0
        default:
            return 0
        }
    }
}
