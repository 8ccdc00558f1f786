extension ParserCore {
    /// Parses a number at `position` (a `-` or a digit).
    ///
    /// Integers of up to 19 digits accumulate without overflow checks; longer ones are
    /// checked and fall back to keeping the text, as do fractions and exponents. The work is
    /// linear in the literal's length, whatever its magnitude.
    mutating func parseNumber() throws(JSONParseError) -> JSONNumber {
        let start = position
        let negative = base[position] == UInt8(ascii: "-")
        if negative { position += 1 }
        guard position < count else { throw unexpected(expecting: "a digit") }
        var magnitude: UInt64 = 0
        var overflow = false
        let first = base[position]
        if first == UInt8(ascii: "0") {
            position += 1
            if position < count, ParserCore.isDigit(base[position]) {
                throw JSONParseError(kind: .invalidNumber, offset: position - 1, message: "leading zero in number")
            }
        } else if ParserCore.isDigit(first) {
            let digitsStart = position
            while position < count {
                let byte = base[position]
                guard ParserCore.isDigit(byte) else { break }
                let digit = UInt64(byte &- UInt8(ascii: "0"))
                if position - digitsStart < 19 {
                    magnitude = magnitude &* 10 &+ digit
                } else if !overflow {
                    let (shifted, o1) = magnitude.multipliedReportingOverflow(by: 10)
                    let (sum, o2) = shifted.addingReportingOverflow(digit)
                    magnitude = sum
                    overflow = o1 || o2
                }
                position += 1
            }
        } else {
            throw unexpected(expecting: "a digit")
        }
        var integral = true
        if position < count, base[position] == UInt8(ascii: ".") {
            position += 1
            try skipDigits(after: "'.'")
            integral = false
        }
        if position < count, base[position] | 0x20 == UInt8(ascii: "e") {
            position += 1
            if position < count, base[position] == UInt8(ascii: "+") || base[position] == UInt8(ascii: "-") {
                position += 1
            }
            try skipDigits(after: "the exponent marker")
            integral = false
        }
        if integral && !overflow {
            if !negative {
                return JSONNumber(storage: magnitude <= UInt64(Int64.max) ? .int(Int64(magnitude)) : .uint(magnitude))
            }
            if magnitude != 0 && magnitude <= UInt64(Int64.max) + 1 {
                return JSONNumber(storage: .int(Int64(truncatingIfNeeded: 0 &- magnitude)))
            }
        }
        let text = ParserCore.makeString(base + start, count: position - start)
        return JSONNumber(storage: .text(text))
    }

    private mutating func skipDigits(after what: String) throws(JSONParseError) {
        guard position < count, ParserCore.isDigit(base[position]) else {
            let error = unexpected(expecting: "a digit after \(what)")
            guard error.kind == .unexpectedCharacter else { throw error }
            throw JSONParseError(kind: .invalidNumber, offset: error.offset, message: error.message)
        }
        while position < count, ParserCore.isDigit(base[position]) { position += 1 }
    }

    @inline(__always)
    static func isDigit(_ byte: UInt8) -> Bool {
        byte &- UInt8(ascii: "0") < 10
    }
}
