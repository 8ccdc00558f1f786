import MobiusJSON

/// A JSON syntax error in a config file, placed by line and column and shown with the offending line and a caret.
///
/// The parser reports a byte offset; this turns it into what an editor shows. Columns count characters (UTF-8
/// sequences), starting at 1. The line shown is cut to a window around the error, and control characters in it
/// are shown as `?`, so neither a huge one-line file nor terminal escapes in it reach the user's screen.
struct ConfigSyntaxError {
    /// The line, from 1.
    let line: Int
    /// The column in characters, from 1.
    let column: Int
    /// The parser's message without its position, e.g. `trailing comma before '}'`.
    let message: String
    /// The offending line (or a window of it) and a caret under the error, two lines.
    let excerpt: String

    /// Widest part of the line shown before and after the error, in bytes.
    static let window = 60

    init(_ error: JSONParseError, in bytes: [UInt8]) {
        let offset = min(max(error.offset, 0), bytes.count)
        var lineStart = 0
        var line = 1
        for index in 0..<offset where bytes[index] == UInt8(ascii: "\n") {
            line += 1
            lineStart = index + 1
        }
        var lineEnd = offset
        while lineEnd < bytes.count, bytes[lineEnd] != UInt8(ascii: "\n"), bytes[lineEnd] != UInt8(ascii: "\r") {
            lineEnd += 1
        }
        self.line = line
        column = Self.characters(bytes[lineStart..<offset]) + 1
        message = error.message
        var from = max(lineStart, offset - Self.window)
        var to = min(lineEnd, offset + Self.window)
        // Cut only at the start of a UTF-8 sequence.
        while from > lineStart, from < bytes.count, bytes[from] & 0xC0 == 0x80 { from -= 1 }
        while to < lineEnd, bytes[to] & 0xC0 == 0x80 { to += 1 }
        let before = (from > lineStart ? "…" : "") + Self.printable(bytes[from..<offset])
        let after = Self.printable(bytes[offset..<to]) + (to < lineEnd ? "…" : "")
        // The caret line keeps tabs so the caret lines up under a tab-indented line.
        let pad = String(before.unicodeScalars.map { $0 == "\t" ? "\t" : " " })
        excerpt = "  \(before)\(after)\n  \(pad)^"
    }

    /// The number of characters (UTF-8 sequences; a stray byte counts as one) in `bytes`.
    static func characters(_ bytes: ArraySlice<UInt8>) -> Int {
        bytes.reduce(0) { count, byte in byte & 0xC0 == 0x80 ? count : count + 1 }
    }

    /// The bytes as text for a terminal: invalid UTF-8 becomes U+FFFD, control characters other than tab `?`.
    static func printable(_ bytes: ArraySlice<UInt8>) -> String {
        ConfigError.printable(String(decoding: bytes, as: UTF8.self), keeping: ["\t"])
    }

    /// The config error: `line L, column C: not valid JSON: MESSAGE`, then the excerpt.
    func configError(file: String) -> ConfigError {
        ConfigError(key: "line \(line), column \(column)", "not valid JSON: \(message)\n\(excerpt)", file: file)
    }
}
