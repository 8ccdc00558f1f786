/// A value typed for a D-Bus message, built from JSON against a signature (`DBusArgument+JSON`) and appended to a
/// message by `DBusMessage.append`.
indirect enum DBusArgument: Sendable, Equatable {
    case byte(UInt8)
    case boolean(Bool)
    case int16(Int16)
    case uint16(UInt16)
    case int32(Int32)
    case uint32(UInt32)
    case int64(Int64)
    case uint64(UInt64)
    case double(Double)
    case string(String)
    case objectPath(String)
    case signature(String)
    /// The element type and the elements.
    case array(DBusType, [DBusArgument])
    /// The key and value types and the entries, in order.
    case dictionary(key: DBusType, value: DBusType, [(DBusArgument, DBusArgument)])
    case structure([DBusArgument])
    /// The contained value's type and the value.
    case variant(DBusType, DBusArgument)

    static func == (lhs: DBusArgument, rhs: DBusArgument) -> Bool {
        switch (lhs, rhs) {
        case (.byte(let a), .byte(let b)): a == b
        case (.boolean(let a), .boolean(let b)): a == b
        case (.int16(let a), .int16(let b)): a == b
        case (.uint16(let a), .uint16(let b)): a == b
        case (.int32(let a), .int32(let b)): a == b
        case (.uint32(let a), .uint32(let b)): a == b
        case (.int64(let a), .int64(let b)): a == b
        case (.uint64(let a), .uint64(let b)): a == b
        case (.double(let a), .double(let b)): a == b
        case (.string(let a), .string(let b)), (.objectPath(let a), .objectPath(let b)),
            (.signature(let a), .signature(let b)):
            a == b
        case (.array(let ta, let a), .array(let tb, let b)): ta == tb && a == b
        case (.dictionary(let ka, let va, let a), .dictionary(let kb, let vb, let b)):
            ka == kb && va == vb && a.count == b.count && zip(a, b).allSatisfy { $0.0 == $1.0 && $0.1 == $1.1 }
        case (.structure(let a), .structure(let b)): a == b
        case (.variant(let ta, let a), .variant(let tb, let b)): ta == tb && a == b
        default: false
        }
    }
}
