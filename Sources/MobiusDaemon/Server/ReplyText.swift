/// Reply lines written often enough to be formatted straight into the output buffer.
enum ReplyText {
    /// Appends `{"ok":true,"seq":N}\n`, formatted on the stack and appended in one copy.
    static func appendAck(_ seq: UInt64, to output: inout [UInt8]) {
        // `{"ok":true,"seq":` is 17 bytes, then at most 20 digits and `}\n`.
        withUnsafeTemporaryAllocation(of: UInt8.self, capacity: 40) { line in
            var end = 40
            end -= 1
            line[end] = UInt8(ascii: "\n")
            end -= 1
            line[end] = UInt8(ascii: "}")
            end = writeDigits(seq, before: end, in: line)
            let prefix: StaticString = #"{"ok":true,"seq":"#
            end -= prefix.utf8CodeUnitCount
            UnsafeMutableRawPointer(line.baseAddress! + end).copyMemory(
                from: prefix.utf8Start, byteCount: prefix.utf8CodeUnitCount)
            output.append(contentsOf: UnsafeBufferPointer(rebasing: line[end..<40]))
        }
    }

    /// Appends the decimal digits of `value` without allocating: formatted back to front into a fixed buffer on
    /// the stack, then appended in one copy.
    static func appendDecimal(_ value: UInt64, to output: inout [UInt8]) {
        withUnsafeTemporaryAllocation(of: UInt8.self, capacity: 20) { digits in
            let start = writeDigits(value, before: 20, in: digits)
            output.append(contentsOf: UnsafeBufferPointer(rebasing: digits[start..<20]))
        }
    }

    /// Writes the decimal digits of `value` back to front, ending just before `end`; returns where they start.
    private static func writeDigits(
        _ value: UInt64, before end: Int, in buffer: UnsafeMutableBufferPointer<UInt8>
    )
        -> Int
    {
        var remaining = value
        var start = end
        repeat {
            start -= 1
            buffer[start] = UInt8(ascii: "0") &+ UInt8(truncatingIfNeeded: remaining % 10)
            remaining /= 10
        } while remaining > 0
        return start
    }

    /// `{"trace":"dropped","count":N}`: trace lines the client missed because it read too slowly.
    static func droppedTraces(_ count: Int) -> [UInt8] {
        var line = Array(#"{"trace":"dropped","count":"#.utf8)
        appendDecimal(UInt64(count), to: &line)
        line.append(contentsOf: Array("}\n".utf8))
        return line
    }
}
