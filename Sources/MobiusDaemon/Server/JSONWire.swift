import MobiusJSON

/// The one place the server calls the JSON parser for request bytes.
enum JSONWire {
    /// Parses `bytes` as exactly one JSON value (surrounding whitespace allowed).
    static func parse(_ bytes: ArraySlice<UInt8>) throws -> JSONValue {
        try bytes.withUnsafeBytes { try JSONValue(parsing: $0) }
    }
}
