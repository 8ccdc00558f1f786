import MobiusJSON

/// Builds the daemon's output lines: one compact JSON object and a newline.
enum JSONLine {
    /// The encoded object with members in the given order, newline-terminated.
    static func object(_ members: [(String, JSONValue)]) -> [UInt8] {
        var bytes = JSONValue.object(JSONObject(members)).encoded()
        bytes.append(UInt8(ascii: "\n"))
        return bytes
    }

    /// `{"ok":false,"error":{"code":C,"message":M},"line":K}` (without `line` when `line` is nil); `details` are more
    /// members of the error object, after the message.
    static func error(_ code: ErrorCode, _ message: String, line: Int?, details: [(String, JSONValue)] = []) -> [UInt8]
    {
        let error = [("code", JSONValue.string(code.rawValue)), ("message", .string(message))] + details
        var members: [(String, JSONValue)] = [("ok", false), ("error", .object(JSONObject(error)))]
        if let line { members.append(("line", .number(JSONNumber(line)))) }
        return object(members)
    }
}
