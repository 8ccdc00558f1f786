import MobiusJSON

/// The one place the daemon calls the JSON parser for request bytes (event lines on the loop thread, command
/// arguments on the I/O thread).
enum JSONWire {
    /// Parses `bytes` as exactly one JSON value (surrounding whitespace allowed).
    static func parse(_ bytes: ArraySlice<UInt8>) throws -> JSONValue {
        try bytes.withUnsafeBytes { try JSONValue(parsing: $0) }
    }
}
