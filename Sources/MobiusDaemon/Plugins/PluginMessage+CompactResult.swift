import MobiusJSON

extension PluginMessage {
    private static let resultHead = Array(#"{"jsonrpc":"2.0","id":"#.utf8)
    private static let resultMiddle = Array(#","result":"#.utf8)
    /// The result is parsed one level below the line's top, so its nesting may go one level less deep than the
    /// whole line's may: the outcome is the general parse's at every depth.
    private static let resultParser = JSONParser(maxDepth: JSONParser.defaultMaxDepth - 1)

    /// The usual answer to a request, exactly `{"jsonrpc":"2.0","id":N,"result":R}` (compact, these members in this
    /// order, `N` a plain integer of at most 18 digits), read without building the envelope: the id and the parsed
    /// `R`. `nil` for every other line, which then takes the general way (`JSONValue(parsing:)` and `init(_:)`).
    /// Every line this accepts gets exactly what the general way gives it (PluginMessageTests holds it to that); it
    /// exists because each effect's answer went through it, and building the envelope object, its keys and the
    /// lookups in it was a sixth of parsing the answer.
    static func compactResult(_ line: ArraySlice<UInt8>) -> (id: Int64, result: JSONValue)? {
        let head = resultHead
        guard line.count > head.count + resultMiddle.count + 2, line.starts(with: head) else { return nil }
        return line.withUnsafeBytes { raw -> (id: Int64, result: JSONValue)? in
            var index = head.count
            let negative = raw[index] == UInt8(ascii: "-")
            if negative { index += 1 }
            let digitsStart = index
            var magnitude: Int64 = 0
            while index < raw.count, raw[index] &- UInt8(ascii: "0") < 10 {
                guard index - digitsStart < 18 else { return nil }
                magnitude = magnitude * 10 + Int64(raw[index] &- UInt8(ascii: "0"))
                index += 1
            }
            let digits = index - digitsStart
            // No digits, or a leading zero (not JSON): the general way reports it.
            guard digits > 0, digits == 1 || raw[digitsStart] != UInt8(ascii: "0") else { return nil }
            let middle = resultMiddle
            guard raw.count - index > middle.count,
                UnsafeRawBufferPointer(rebasing: raw[index..<(index + middle.count)]).elementsEqual(middle)
            else { return nil }
            index += middle.count
            guard
                let (result, length) = try? resultParser.parsePrefix(
                    UnsafeRawBufferPointer(rebasing: raw[index...])),
                index + length == raw.count - 1, raw[raw.count - 1] == UInt8(ascii: "}")
            else { return nil }
            return (negative ? -magnitude : magnitude, result)
        }
    }
}
