/// Parses D-Bus signature strings into types, with the specification's limits: at most 255 bytes, arrays and
/// structs each nested at most 32 deep, dict entries only directly inside an array with a basic key, no empty
/// structs.
enum DBusSignature {
    /// Why a signature is not valid; the message says where.
    struct Problem: Error, CustomStringConvertible {
        let description: String
    }

    static let maxLength = 255
    static let maxArrayDepth = 32
    static let maxStructDepth = 32

    /// The complete types of `text`, in order (an empty signature has none).
    static func parse(_ text: String) throws(Problem) -> [DBusType] {
        let bytes = Array(text.utf8)
        guard bytes.count <= maxLength else {
            throw Problem(description: "signature \"\(text.prefix(40))…\" is longer than \(maxLength) bytes")
        }
        var position = 0
        var types: [DBusType] = []
        while position < bytes.count {
            types.append(try single(bytes, &position, arrays: 0, structs: 0, text: text))
        }
        return types
    }

    /// Exactly one complete type (a variant's declared type, a dict key).
    static func parseSingle(_ text: String) throws(Problem) -> DBusType {
        let types = try parse(text)
        guard types.count == 1 else {
            throw Problem(description: "signature \"\(text)\" must be exactly one complete type")
        }
        return types[0]
    }

    private static func single(
        _ bytes: [UInt8], _ position: inout Int, arrays: Int, structs: Int, text: String
    ) throws(Problem) -> DBusType {
        guard position < bytes.count else {
            throw Problem(description: "signature \"\(text)\" ends inside a container")
        }
        let code = bytes[position]
        position += 1
        switch code {
        case UInt8(ascii: "y"): return .byte
        case UInt8(ascii: "b"): return .boolean
        case UInt8(ascii: "n"): return .int16
        case UInt8(ascii: "q"): return .uint16
        case UInt8(ascii: "i"): return .int32
        case UInt8(ascii: "u"): return .uint32
        case UInt8(ascii: "x"): return .int64
        case UInt8(ascii: "t"): return .uint64
        case UInt8(ascii: "d"): return .double
        case UInt8(ascii: "s"): return .string
        case UInt8(ascii: "o"): return .objectPath
        case UInt8(ascii: "g"): return .signature
        case UInt8(ascii: "h"): return .unixFD
        case UInt8(ascii: "v"): return .variant
        case UInt8(ascii: "a"):
            guard arrays < maxArrayDepth else {
                throw Problem(description: "signature \"\(text)\" nests arrays deeper than \(maxArrayDepth)")
            }
            if position < bytes.count && bytes[position] == UInt8(ascii: "{") {
                position += 1
                let key = try single(bytes, &position, arrays: arrays + 1, structs: structs, text: text)
                guard key.isBasic else {
                    throw Problem(description: "signature \"\(text)\": a dict key must be a basic type")
                }
                let value = try single(bytes, &position, arrays: arrays + 1, structs: structs, text: text)
                guard position < bytes.count, bytes[position] == UInt8(ascii: "}") else {
                    throw Problem(description: "signature \"\(text)\": a dict entry has exactly a key and a value")
                }
                position += 1
                return .dictionary(key: key, value: value)
            }
            return .array(try single(bytes, &position, arrays: arrays + 1, structs: structs, text: text))
        case UInt8(ascii: "("):
            guard structs < maxStructDepth else {
                throw Problem(description: "signature \"\(text)\" nests structs deeper than \(maxStructDepth)")
            }
            var fields: [DBusType] = []
            while position < bytes.count && bytes[position] != UInt8(ascii: ")") {
                fields.append(try single(bytes, &position, arrays: arrays, structs: structs + 1, text: text))
            }
            guard position < bytes.count else {
                throw Problem(description: "signature \"\(text)\": a struct is not closed")
            }
            position += 1
            guard !fields.isEmpty else { throw Problem(description: "signature \"\(text)\": empty struct") }
            return .structure(fields)
        default:
            let shown = code < 0x80 ? String(UnicodeScalar(code)) : "\\x" + String(code, radix: 16)
            throw Problem(description: "signature \"\(text)\": '\(shown)' is not a D-Bus type code here")
        }
    }
}
