/// Reply lines written often enough to be formatted straight into the output buffer.
enum ReplyText {
    private static let ackPrefix = Array(#"{"ok":true,"seq":"#.utf8)

    /// Appends `{"ok":true,"seq":N}\n`.
    static func appendAck(_ seq: UInt64, to output: inout [UInt8]) {
        output.append(contentsOf: ackPrefix)
        appendDecimal(seq, to: &output)
        output.append(UInt8(ascii: "}"))
        output.append(UInt8(ascii: "\n"))
    }

    /// Appends the decimal digits of `value` without allocating.
    static func appendDecimal(_ value: UInt64, to output: inout [UInt8]) {
        var digits = 1
        var probe = value
        while probe >= 10 {
            probe /= 10
            digits += 1
        }
        let start = output.count
        output.append(contentsOf: repeatElement(UInt8(ascii: "0"), count: digits))
        var remaining = value
        var index = start + digits - 1
        while index >= start {
            output[index] = UInt8(ascii: "0") + UInt8(remaining % 10)
            remaining /= 10
            index -= 1
        }
    }

    /// `{"trace":"dropped","count":N}`: trace lines the client missed because it read too slowly.
    static func droppedTraces(_ count: Int) -> [UInt8] {
        var line = Array(#"{"trace":"dropped","count":"#.utf8)
        appendDecimal(UInt64(count), to: &line)
        line.append(contentsOf: Array("}\n".utf8))
        return line
    }
}
