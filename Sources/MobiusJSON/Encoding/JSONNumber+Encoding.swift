extension JSONNumber {
    /// Appends the number's JSON text (``literal``) to `output`.
    public func encode(into output: inout [UInt8]) {
        switch storage {
        case .int(let value):
            JSONNumber.appendDecimal(value.magnitude, negative: value < 0, to: &output)
        case .uint(let value):
            JSONNumber.appendDecimal(value, negative: false, to: &output)
        case .double(let value):
            output.append(contentsOf: JSONNumber.shortestText(value).utf8)
        case .text(let text):
            output.append(contentsOf: text.utf8)
        }
    }

    /// Writes the digits into a stack buffer back to front, then appends them at once.
    @inline(__always)
    static func appendDecimal(_ magnitude: UInt64, negative: Bool, to output: inout [UInt8]) {
        if magnitude < 10 && !negative {
            output.append(UInt8(ascii: "0") &+ UInt8(magnitude))
            return
        }
        withUnsafeTemporaryAllocation(of: UInt8.self, capacity: 21) { buffer in
            var index = 21
            var rest = magnitude
            repeat {
                index -= 1
                buffer[index] = UInt8(ascii: "0") &+ UInt8(rest % 10)
                rest /= 10
            } while rest != 0
            if negative {
                index -= 1
                buffer[index] = UInt8(ascii: "-")
            }
            output.append(contentsOf: UnsafeBufferPointer(rebasing: buffer[index...]))
        }
    }
}
