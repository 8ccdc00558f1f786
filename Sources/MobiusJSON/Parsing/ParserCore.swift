/// The recursive-descent parser over one contiguous buffer. One instance parses one value.
///
/// Bytes are read through an unsafe pointer without bounds checks; every read is guarded by
/// an explicit `position < count` test. Arrays and objects collect their elements into an
/// array reserved for a few elements, which becomes the container's storage without a copy.
struct ParserCore {
    let base: UnsafePointer<UInt8>
    let count: Int
    let maxDepth: Int
    let rejectDuplicates: Bool
    var position = 0
    var depth = 0
    var scratch: [UInt8] = []

    /// Initial element capacity of arrays and objects: small events fit without regrowing.
    private static let initialCapacity = 8

    init(buffer: UnsafeRawBufferPointer, maxDepth: Int, duplicateKeys: JSONParser.DuplicateKeyPolicy) {
        if let address = buffer.baseAddress {
            base = address.assumingMemoryBound(to: UInt8.self)
        } else {
            // An empty buffer: never dereferenced, every read checks `position < count`.
            base = UnsafePointer(bitPattern: 1)!
        }
        count = buffer.count
        self.maxDepth = maxDepth
        rejectDuplicates = duplicateKeys == .reject
    }

    // MARK: Whitespace and top level

    @inline(__always)
    mutating func skipWhitespace() {
        while position < count {
            let byte = base[position]
            guard byte == 0x20 || byte == 0x0A || byte == 0x0D || byte == 0x09 else { return }
            position += 1
        }
    }

    /// Parses exactly one value surrounded by optional whitespace.
    mutating func parseDocument() throws(JSONParseError) -> JSONValue {
        skipWhitespace()
        let value = try parseValue()
        skipWhitespace()
        if position < count { throw trailingContentError() }
        return value
    }

    // MARK: Values

    mutating func parseValue() throws(JSONParseError) -> JSONValue {
        guard position < count else { throw unexpected(expecting: "a value") }
        switch base[position] {
        case UInt8(ascii: "\""):
            return .string(try parseString())
        case UInt8(ascii: "{"):
            return try parseObject()
        case UInt8(ascii: "["):
            return try parseArray()
        case UInt8(ascii: "-"), UInt8(ascii: "0")...UInt8(ascii: "9"):
            return .number(try parseNumber())
        case UInt8(ascii: "t"):
            try expectLiteral("true")
            return .bool(true)
        case UInt8(ascii: "f"):
            try expectLiteral("false")
            return .bool(false)
        case UInt8(ascii: "n"):
            try expectLiteral("null")
            return .null
        default:
            throw unexpected(expecting: "a value")
        }
    }

    private mutating func expectLiteral(_ literal: StaticString) throws(JSONParseError) {
        let bytes = UnsafeBufferPointer(start: literal.utf8Start, count: literal.utf8CodeUnitCount)
        for byte in bytes {
            guard position < count, base[position] == byte else { throw unexpected(expecting: "'\(literal)'") }
            position += 1
        }
    }

    private mutating func enterContainer() throws(JSONParseError) {
        depth += 1
        if depth > maxDepth {
            throw JSONParseError(
                kind: .depthLimitExceeded, offset: position, message: "nesting deeper than \(maxDepth)")
        }
    }

    private mutating func parseArray() throws(JSONParseError) -> JSONValue {
        try enterContainer()
        position += 1
        skipWhitespace()
        if position < count, base[position] == UInt8(ascii: "]") {
            position += 1
            depth -= 1
            return .array([])
        }
        var elements: [JSONValue] = []
        elements.reserveCapacity(ParserCore.initialCapacity)
        while true {
            skipWhitespace()
            if position < count, base[position] == UInt8(ascii: "]"), !elements.isEmpty {
                throw JSONParseError(kind: .unexpectedCharacter, offset: position, message: "trailing comma before ']'")
            }
            let element = try parseValue()
            elements.append(element)
            skipWhitespace()
            guard position < count else { throw unexpected(expecting: "',' or ']'") }
            let byte = base[position]
            position += 1
            if byte == UInt8(ascii: ",") { continue }
            if byte == UInt8(ascii: "]") { break }
            position -= 1
            throw unexpected(expecting: "',' or ']'")
        }
        depth -= 1
        return .array(elements)
    }

    private mutating func parseObject() throws(JSONParseError) -> JSONValue {
        try enterContainer()
        position += 1
        skipWhitespace()
        if position < count, base[position] == UInt8(ascii: "}") {
            position += 1
            depth -= 1
            return .object(JSONObject())
        }
        var members: [(key: String, value: JSONValue)] = []
        members.reserveCapacity(ParserCore.initialCapacity)
        var keyIndex: [String: Int]? = nil
        while true {
            skipWhitespace()
            guard position < count, base[position] == UInt8(ascii: "\"") else {
                if position < count, base[position] == UInt8(ascii: "}"), !members.isEmpty {
                    throw JSONParseError(
                        kind: .unexpectedCharacter, offset: position, message: "trailing comma before '}'")
                }
                throw unexpected(expecting: "a string key")
            }
            let keyOffset = position
            let key = try parseString()
            skipWhitespace()
            guard position < count, base[position] == UInt8(ascii: ":") else { throw unexpected(expecting: "':'") }
            position += 1
            skipWhitespace()
            let value = try parseValue()
            if let existing = ParserCore.findMember(key, in: members, index: &keyIndex) {
                if rejectDuplicates {
                    throw JSONParseError(kind: .duplicateKey, offset: keyOffset, message: "duplicate key \"\(key)\"")
                }
                members[existing].value = value
            } else {
                members.append((key, value))
                keyIndex?[key] = members.count - 1
            }
            skipWhitespace()
            guard position < count else { throw unexpected(expecting: "',' or '}'") }
            let byte = base[position]
            position += 1
            if byte == UInt8(ascii: ",") { continue }
            if byte == UInt8(ascii: "}") { break }
            position -= 1
            throw unexpected(expecting: "',' or '}'")
        }
        depth -= 1
        return .object(JSONObject(uniqueMembers: members))
    }

    /// The position of `key` among the members parsed so far; builds a hash index once the
    /// object outgrows a linear scan.
    @inline(__always)
    private static func findMember(
        _ key: String, in members: [(key: String, value: JSONValue)], index: inout [String: Int]?
    ) -> Int? {
        if let index { return index[key] }
        if members.count > JSONObject.indexThreshold {
            var built = [String: Int](minimumCapacity: members.count * 2)
            for position in members.indices { built[members[position].key] = position }
            index = built
            return built[key]
        }
        for position in members.indices where members[position].key == key { return position }
        return nil
    }

    // MARK: Errors

    /// An error for the byte at `position`, which does not fit `expectation`.
    func unexpected(expecting expectation: String) -> JSONParseError {
        guard position < count else {
            return JSONParseError(
                kind: .unexpectedEnd, offset: position, message: "unexpected end of input, expected \(expectation)")
        }
        guard let subject = subject(at: position) else {
            return JSONParseError(kind: .invalidUTF8, offset: position, message: "invalid UTF-8")
        }
        return JSONParseError(
            kind: .unexpectedCharacter, offset: position, message: "unexpected \(subject), expected \(expectation)")
    }

    private func trailingContentError() -> JSONParseError {
        guard let subject = subject(at: position) else {
            return JSONParseError(kind: .invalidUTF8, offset: position, message: "invalid UTF-8")
        }
        return JSONParseError(
            kind: .trailingContent, offset: position, message: "unexpected \(subject) after the value")
    }

    /// `character 'x'` or `byte 0x01` for the byte at `offset`; `nil` when it starts invalid UTF-8.
    func subject(at offset: Int) -> String? {
        let byte = base[offset]
        if byte >= 0x80 {
            let length = utf8SequenceLength(at: offset)
            guard length > 0 else { return nil }
            let character = String(decoding: UnsafeBufferPointer(start: base + offset, count: length), as: UTF8.self)
            return "character '\(character)'"
        }
        if byte >= 0x20 && byte < 0x7F { return "character '\(Character(Unicode.Scalar(byte)))'" }
        return "byte 0x\(ParserCore.hex(byte))"
    }

    static func hex(_ byte: UInt8) -> String {
        let digits = Array("0123456789ABCDEF")
        return String([digits[Int(byte >> 4)], digits[Int(byte & 0xF)]])
    }
}
