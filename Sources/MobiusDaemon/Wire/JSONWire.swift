import MobiusJSON

/// The one place the daemon calls the JSON parser for request bytes (event lines and command arguments, on the
/// reactor thread, or on the parse thread for a pipelined batch).
enum JSONWire {
    /// Parses `bytes` as exactly one JSON value (surrounding whitespace allowed).
    static func parse(_ bytes: ArraySlice<UInt8>) throws -> JSONValue {
        try bytes.withUnsafeBytes { try JSONValue(parsing: $0) }
    }

    /// `bytes` (valid JSON) when it is compact, that is without whitespace outside strings, else `nil`. The journal
    /// records such text as it came instead of encoding the parsed value again: it parses to the same value, and a
    /// record's event stays compact.
    static func compactText(_ bytes: ArraySlice<UInt8>) -> ArraySlice<UInt8>? {
        // Valid JSON has no raw control characters inside strings, so no byte at or below 0x20 means no whitespace
        // anywhere: one branch-free pass over the bytes for the usual event. Only text with such a byte (a space
        // in a string, or whitespace between tokens) needs the string-aware walk below.
        let lowest = bytes.withUnsafeBufferPointer { buffer in buffer.reduce(UInt8.max) { min($0, $1) } }
        guard lowest <= 0x20 else { return bytes }
        var inString = false
        var escaped = false
        for byte in bytes {
            if inString {
                if escaped {
                    escaped = false
                } else if byte == UInt8(ascii: "\\") {
                    escaped = true
                } else if byte == UInt8(ascii: "\"") {
                    inString = false
                }
            } else if byte == UInt8(ascii: "\"") {
                inString = true
            } else if byte == 0x20 || byte == 0x09 || byte == 0x0A || byte == 0x0D {
                return nil
            }
        }
        return bytes
    }
}
