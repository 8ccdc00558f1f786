extension JSONValue {
    /// The compact JSON text of the value as UTF-8: no whitespace, members in order, numbers
    /// as kept (see ``JSONNumber``), strings with only the escapes JSON requires.
    public func encoded() -> [UInt8] {
        var output: [UInt8] = []
        output.reserveCapacity(128)
        encode(into: &output)
        return output
    }

    /// Appends the compact JSON text of the value to `output`.
    public func encode(into output: inout [UInt8]) {
        switch self {
        case .null:
            JSONValue.appendASCII("null", to: &output)
        case .bool(let value):
            JSONValue.appendASCII(value ? "true" : "false", to: &output)
        case .number(let number):
            number.encode(into: &output)
        case .string(let string):
            JSONValue.encodeString(string, into: &output)
        case .array(let elements):
            output.append(UInt8(ascii: "["))
            var first = true
            for element in elements {
                if !first { output.append(UInt8(ascii: ",")) }
                first = false
                element.encode(into: &output)
            }
            output.append(UInt8(ascii: "]"))
        case .object(let object):
            output.append(UInt8(ascii: "{"))
            var first = true
            for member in object.storage {
                if !first { output.append(UInt8(ascii: ",")) }
                first = false
                JSONValue.encodeString(member.key, into: &output)
                output.append(UInt8(ascii: ":"))
                member.value.encode(into: &output)
            }
            output.append(UInt8(ascii: "}"))
        }
    }

    @inline(__always)
    static func appendASCII(_ text: StaticString, to output: inout [UInt8]) {
        output.append(contentsOf: UnsafeBufferPointer(start: text.utf8Start, count: text.utf8CodeUnitCount))
    }

    /// Appends `string` quoted: `"` and `\` escaped, control characters as `\n`, `\t`, `\r`,
    /// `\b`, `\f` or `\u00XX`, everything else (DEL and non-ASCII included) as raw UTF-8.
    static func encodeString(_ string: String, into output: inout [UInt8]) {
        output.append(UInt8(ascii: "\""))
        let done: Void? = string.utf8.withContiguousStorageIfAvailable { bytes in
            encodeStringBytes(bytes, into: &output)
        }
        if done == nil {
            let bytes = Array(string.utf8)
            bytes.withUnsafeBufferPointer { encodeStringBytes($0, into: &output) }
        }
        output.append(UInt8(ascii: "\""))
    }

    private static func encodeStringBytes(_ bytes: UnsafeBufferPointer<UInt8>, into output: inout [UInt8]) {
        var runStart = 0
        var index = 0
        while index < bytes.count {
            let byte = bytes[index]
            if byte >= 0x20 && byte != UInt8(ascii: "\"") && byte != UInt8(ascii: "\\") {
                index += 1
                continue
            }
            output.append(contentsOf: UnsafeBufferPointer(rebasing: bytes[runStart..<index]))
            output.append(UInt8(ascii: "\\"))
            switch byte {
            case UInt8(ascii: "\""), UInt8(ascii: "\\"): output.append(byte)
            case 0x0A: output.append(UInt8(ascii: "n"))
            case 0x0D: output.append(UInt8(ascii: "r"))
            case 0x09: output.append(UInt8(ascii: "t"))
            case 0x08: output.append(UInt8(ascii: "b"))
            case 0x0C: output.append(UInt8(ascii: "f"))
            default:
                let hex: StaticString = "0123456789abcdef"
                output.append(UInt8(ascii: "u"))
                output.append(UInt8(ascii: "0"))
                output.append(UInt8(ascii: "0"))
                output.append(hex.utf8Start[Int(byte >> 4)])
                output.append(hex.utf8Start[Int(byte & 0xF)])
            }
            index += 1
            runStart = index
        }
        output.append(contentsOf: UnsafeBufferPointer(rebasing: bytes[runStart..<index]))
    }
}

extension JSONValue: CustomStringConvertible {
    /// The compact JSON text of the value.
    public var description: String {
        String(decoding: encoded(), as: UTF8.self)
    }
}
