import MobiusJSON

/// One request line, classified per docs/protocol.md 1.2.
enum RequestLine {
    /// Empty or whitespace only: ignored, but counted as a line.
    case blank
    /// A bare JSON value: an event, parsed by whoever interprets the line (the reactor, or the parse thread for a
    /// batch).
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
