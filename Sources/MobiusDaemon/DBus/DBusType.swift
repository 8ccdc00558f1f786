/// One complete D-Bus type (a single complete type of a signature string).
indirect enum DBusType: Equatable, Sendable {
    case byte, boolean, int16, uint16, int32, uint32, int64, uint64, double
    case string, objectPath, signature, unixFD
    case array(DBusType)
    /// `a{kv}`: an array of dict entries, mapped to a JSON object.
    case dictionary(key: DBusType, value: DBusType)
    case structure([DBusType])
    case variant

    /// The type's signature text (`u`, `a{sv}`, `(iis)`).
    var signature: String {
        switch self {
        case .byte: "y"
        case .boolean: "b"
        case .int16: "n"
        case .uint16: "q"
        case .int32: "i"
        case .uint32: "u"
        case .int64: "x"
        case .uint64: "t"
        case .double: "d"
        case .string: "s"
        case .objectPath: "o"
        case .signature: "g"
        case .unixFD: "h"
        case .array(let element): "a" + element.signature
        case .dictionary(let key, let value): "a{" + key.signature + value.signature + "}"
        case .structure(let fields): "(" + fields.map(\.signature).joined() + ")"
        case .variant: "v"
        }
    }

    /// Whether the type is basic (allowed as a dict key).
    var isBasic: Bool {
        switch self {
        case .array, .dictionary, .structure, .variant: false
        default: true
        }
    }

    /// A readable name for messages (`uint32`, `array of string`).
    var name: String {
        switch self {
        case .byte: "byte (uint8)"
        case .boolean: "boolean"
        case .int16: "int16"
        case .uint16: "uint16"
        case .int32: "int32"
        case .uint32: "uint32"
        case .int64: "int64"
        case .uint64: "uint64"
        case .double: "double"
        case .string: "string"
        case .objectPath: "object path"
        case .signature: "signature"
        case .unixFD: "unix fd"
        case .array(let element): "array of \(element.name)"
        case .dictionary(let key, let value): "dict of \(key.name) to \(value.name)"
        case .structure(let fields): "struct of \(fields.count) fields"
        case .variant: "variant"
        }
    }
}
