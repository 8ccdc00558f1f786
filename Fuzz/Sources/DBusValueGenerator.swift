@testable import MobiusDaemon

/// Draws D-Bus types and values from the fuzzer's bytes, within the specification's limits: signatures of at most 255
/// bytes, 32 nested arrays and 32 nested structs, 32 containers in all (the daemon's own bound for what it sends).
/// Every type but the unix fd, which a message built here cannot carry (the reader maps one to `null` unread).
struct DBusValueGenerator {
    var input: FuzzInput

    static let basics: [DBusType] = [
        .byte, .boolean, .int16, .uint16, .int32, .uint32, .int64, .uint64, .double, .string, .objectPath, .signature,
    ]

    /// A complete type whose signature fits in `signatureRoom` bytes, or `nil` when none does.
    mutating func type(signatureRoom: Int) -> DBusType? {
        guard signatureRoom > 0 else { return nil }
        var room = signatureRoom
        return type(arrays: 0, structs: 0, depth: 0, room: &room)
    }

    private mutating func type(arrays: Int, structs: Int, depth: Int, room: inout Int) -> DBusType {
        let pick = input.int(0...16)
        // A container needs room for its own codes and at least one basic type.
        if pick < Self.basics.count || depth >= DBusArgument.maxDepth || room < 5 {
            room -= 1
            return Self.basics[pick % Self.basics.count]
        }
        switch pick {
        case 12 where arrays < DBusSignature.maxArrayDepth:
            room -= 1
            return .array(type(arrays: arrays + 1, structs: structs, depth: depth + 1, room: &room))
        case 13 where arrays < DBusSignature.maxArrayDepth:
            room -= 4
            let key = Self.basics[input.int(0...(Self.basics.count - 1))]
            return .dictionary(
                key: key, value: type(arrays: arrays + 1, structs: structs, depth: depth + 1, room: &room))
        case 14 where structs < DBusSignature.maxStructDepth:
            room -= 2
            var fields = [type(arrays: arrays, structs: structs + 1, depth: depth + 1, room: &room)]
            while room > 1 && input.int(0...2) > 0 {
                fields.append(type(arrays: arrays, structs: structs + 1, depth: depth + 1, room: &room))
            }
            return .structure(fields)
        case 15, 16:
            room -= 1
            return .variant
        default:
            room -= 1
            return Self.basics[pick % Self.basics.count]
        }
    }

    /// A value of `type`; `depth` counts the containers around it (a variant's content is a new type, so a variant
    /// deep inside may hold containers only as far as the total bound allows).
    mutating func value(of type: DBusType, depth: Int) -> DBusArgument {
        switch type {
        case .byte: return .byte(input.byte())
        case .boolean: return .boolean(input.bool())
        case .int16: return .int16(Int16(truncatingIfNeeded: integer(2)))
        case .uint16: return .uint16(UInt16(truncatingIfNeeded: integer(2)))
        case .int32: return .int32(Int32(truncatingIfNeeded: integer(4)))
        case .uint32: return .uint32(UInt32(truncatingIfNeeded: integer(4)))
        case .int64: return .int64(Int64(bitPattern: integer(8)))
        case .uint64: return .uint64(integer(8))
        case .double: return .double(Double(bitPattern: integer(8)))
        case .string: return .string(text())
        case .objectPath:
            let path = "/" + text()
            return .objectPath(DBusNames.isObjectPath(path) ? path : "/")
        case .signature:
            let signature = text()
            return .signature((try? DBusSignature.parse(signature)) != nil ? signature : "")
        case .unixFD:
            preconditionFailure("unix fds are not generated")
        case .array(let element):
            let items = (0..<input.int(0...5)).map { _ in value(of: element, depth: depth + 1) }
            return .array(element, items)
        case .dictionary(let key, let valueType):
            let entries = (0..<input.int(0...4)).map { _ in
                (value(of: key, depth: depth + 1), value(of: valueType, depth: depth + 1))
            }
            return .dictionary(key: key, value: valueType, entries)
        case .structure(let fields):
            return .structure(fields.map { value(of: $0, depth: depth + 1) })
        case .variant:
            var room = 255
            let contained =
                depth + 1 >= DBusArgument.maxDepth
                ? Self.basics[input.int(0...(Self.basics.count - 1))]
                : self.type(arrays: 0, structs: 0, depth: depth + 1, room: &room)
            return .variant(contained, value(of: contained, depth: depth + 1))
        }
    }

    /// A little-endian integer of `bytes` bytes.
    private mutating func integer(_ bytes: Int) -> UInt64 {
        (0..<bytes).reduce(0) { value, index in value | UInt64(input.byte()) << (8 * UInt64(index)) }
    }

    /// Up to 24 bytes as text (D-Bus strings are UTF-8 without NUL).
    private mutating func text() -> String {
        String(decoding: input.bytes(upTo: 24).filter { $0 != 0 }, as: UTF8.self)
    }
}
