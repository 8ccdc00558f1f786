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

    /// Appends the decimal digits of `value` without allocating: formatted back to front into a fixed buffer on
    /// the stack, then appended in one copy.
    static func appendDecimal(_ value: UInt64, to output: inout [UInt8]) {
        withUnsafeTemporaryAllocation(of: UInt8.self, capacity: 20) { digits in
            var remaining = value
            var start = 20
            repeat {
                start -= 1
                digits[start] = UInt8(ascii: "0") &+ UInt8(truncatingIfNeeded: remaining % 10)
                remaining /= 10
            } while remaining > 0
            output.append(contentsOf: UnsafeBufferPointer(rebasing: digits[start..<20]))
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
