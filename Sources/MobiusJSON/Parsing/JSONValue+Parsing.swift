extension JSONValue {
    /// Parses UTF-8 bytes as exactly one JSON value with the default ``JSONParser``.
    ///
    /// - Throws: ``JSONParseError`` naming the byte offset of the problem.
    public init(parsing bytes: some Collection<UInt8>) throws(JSONParseError) {
        self = try JSONParser().parse(bytes)
    }

    /// Parses a buffer (for instance a slice of a larger read buffer) in place.
    ///
    /// - Throws: ``JSONParseError`` with an offset relative to `buffer`.
    public init(parsing buffer: UnsafeRawBufferPointer) throws(JSONParseError) {
        self = try JSONParser().parse(buffer)
    }

    /// Parses JSON text.
    ///
    /// - Throws: ``JSONParseError`` with a UTF-8 byte offset into `text`.
    public init(parsing text: String) throws(JSONParseError) {
        self = try JSONParser().parse(text)
    }
}
