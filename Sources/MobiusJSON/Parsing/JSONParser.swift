/// A strict RFC 8259 parser with a nesting limit.
///
/// Accepts exactly one value of any type (scalars too) with optional surrounding whitespace
/// (space, tab, LF, CR). Rejects leading zeros, trailing commas, comments, single quotes,
/// `NaN`/`Infinity`, raw control characters in strings, unknown escapes, lone surrogate
/// escapes (`"\ud800"`), malformed UTF-8 anywhere, a byte-order mark, and anything after
/// the value. Errors carry the byte offset (``JSONParseError``).
///
/// The parser works on the caller's memory: `parse(_:)` on an `UnsafeRawBufferPointer`
/// that is a slice of a larger buffer copies nothing but the decoded strings.
public struct JSONParser: Sendable {
    /// What to do with a key that appears twice in one object.
    public enum DuplicateKeyPolicy: Sendable, Hashable {
        /// The last value wins, at the position of the first occurrence (Foundation also keeps the last).
        case lastWins
        /// The object is rejected with a `duplicateKey` error at the repeated key.
        case reject
    }

    /// The default nesting limit, as in Foundation's `JSONSerialization`.
    public static let defaultMaxDepth = 512

    /// Arrays and objects may nest this deep; one more level is a `depthLimitExceeded` error.
    /// The parser recurses once per level, so keep it within a few thousand.
    public var maxDepth: Int
    /// The rule for repeated keys.
    public var duplicateKeys: DuplicateKeyPolicy

    /// Creates a parser.
    public init(maxDepth: Int = JSONParser.defaultMaxDepth, duplicateKeys: DuplicateKeyPolicy = .lastWins) {
        self.maxDepth = maxDepth
        self.duplicateKeys = duplicateKeys
    }

    /// Parses `buffer` as exactly one JSON value with optional surrounding whitespace.
    ///
    /// - Throws: ``JSONParseError`` with an offset relative to `buffer`.
    public func parse(_ buffer: UnsafeRawBufferPointer) throws(JSONParseError) -> JSONValue {
        var core = ParserCore(buffer: buffer, maxDepth: maxDepth, duplicateKeys: duplicateKeys)
        return try core.parseDocument()
    }

    /// Parses bytes as exactly one JSON value; contiguous collections are read in place.
    public func parse(_ bytes: some Collection<UInt8>) throws(JSONParseError) -> JSONValue {
        let result = bytes.withContiguousStorageIfAvailable { buffer in
            Result { () throws(JSONParseError) in try parse(UnsafeRawBufferPointer(buffer)) }
        }
        if let result { return try result.get() }
        return try parse(Array(bytes))
    }

    /// Parses the UTF-8 of `text` as exactly one JSON value.
    public func parse(_ text: String) throws(JSONParseError) -> JSONValue {
        var text = text
        return try text.withUTF8 { buffer in
            Result { () throws(JSONParseError) in try parse(UnsafeRawBufferPointer(buffer)) }
        }.get()
    }

    /// Parses one value after optional leading whitespace and returns it with the offset just
    /// past it; whatever follows is left to the caller (e.g. the rest of a command line).
    public func parsePrefix(_ buffer: UnsafeRawBufferPointer) throws(JSONParseError) -> (value: JSONValue, end: Int) {
        var core = ParserCore(buffer: buffer, maxDepth: maxDepth, duplicateKeys: duplicateKeys)
        core.skipWhitespace()
        let value = try core.parseValue()
        return (value, core.position)
    }

    /// Checks that `buffer` is exactly one JSON value with optional surrounding whitespace.
    ///
    /// - Throws: the ``JSONParseError`` that `parse(_:)` would throw.
    public func validate(_ buffer: UnsafeRawBufferPointer) throws(JSONParseError) {
        _ = try parse(buffer)
    }

    /// Whether `buffer` is exactly one JSON value with optional surrounding whitespace.
    public func isSingleValue(_ buffer: UnsafeRawBufferPointer) -> Bool {
        (try? parse(buffer)) != nil
    }

    /// The offset of the first byte that is not part of well-formed UTF-8, or `nil` when the
    /// whole buffer is valid (used to tell an encoding error from a syntax error).
    public static func firstInvalidUTF8(in buffer: UnsafeRawBufferPointer) -> Int? {
        let core = ParserCore(buffer: buffer, maxDepth: 0, duplicateKeys: .lastWins)
        var offset = 0
        while offset < core.count {
            if core.base[offset] < 0x80 {
                offset += 1
                continue
            }
            let length = core.utf8SequenceLength(at: offset)
            if length == 0 { return offset }
            offset += length
        }
        return nil
    }
}
