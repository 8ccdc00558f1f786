import MobiusJSON

extension DBusArgument {
    /// Containers (arrays, dicts, structs, variants) nested in one argument at most. D-Bus limits each kind to 32
    /// levels and a message past the limits makes the bus drop the sender's connection, so a deeper value is
    /// refused here, before it is sent.
    static let maxDepth = 32

    /// Types `values` by the signature: one JSON value per complete type.
    /// - Throws: `DBusArgumentError` naming the first argument that does not fit (or the signature).
    static func list(_ values: [JSONValue], signature: String) throws(DBusArgumentError) -> [DBusArgument] {
        let types: [DBusType]
        do {
            types = try DBusSignature.parse(signature)
        } catch {
            throw DBusArgumentError(argument: "signature", problem: error.description)
        }
        guard types.count == values.count else {
            throw DBusArgumentError(
                argument: "args",
                problem: "signature \"\(signature)\" takes \(types.count) argument(s), got \(values.count)")
        }
        var result: [DBusArgument] = []
        for (index, (value, type)) in zip(values, types).enumerated() {
            result.append(try DBusArgument(json: value, type: type, at: "args[\(index)]", depth: 0))
        }
        return result
    }

    /// Types one JSON value as `type`.
    ///
    /// Integers must be whole numbers in the type's range; doubles take any number; object paths and signatures
    /// are checked; a dict takes a JSON object (keys converted to the key type); a struct takes an array of
    /// exactly its fields; a variant takes `{"signature":"u","value":5}` for an explicit type, else infers one
    /// (bool `b`, whole number `x` or `t`, other number `d`, string `s`, array `av`, object `a{sv}`). Unix fds
    /// cannot be sent, and `null` fits no type.
    init(json: JSONValue, type: DBusType, at place: String, depth: Int) throws(DBusArgumentError) {
        func fail(_ problem: String) -> DBusArgumentError { DBusArgumentError(argument: place, problem: problem) }
        guard depth <= Self.maxDepth else { throw fail("nests deeper than D-Bus allows (\(Self.maxDepth) levels)") }
        switch type {
        case .byte: self = .byte(try Self.integer(json, UInt8.self, type, fail))
        case .int16: self = .int16(try Self.integer(json, Int16.self, type, fail))
        case .uint16: self = .uint16(try Self.integer(json, UInt16.self, type, fail))
        case .int32: self = .int32(try Self.integer(json, Int32.self, type, fail))
        case .uint32: self = .uint32(try Self.integer(json, UInt32.self, type, fail))
        case .int64: self = .int64(try Self.integer(json, Int64.self, type, fail))
        case .uint64: self = .uint64(try Self.integer(json, UInt64.self, type, fail))
        case .boolean:
            guard let flag = json.boolValue else { throw fail("expected true or false for a boolean") }
            self = .boolean(flag)
        case .double:
            guard let number = json.numberValue, number.doubleValue.isFinite else {
                throw fail("expected a number for a double")
            }
            self = .double(number.doubleValue)
        case .string:
            self = .string(try Self.text(json, type, fail))
        case .objectPath:
            let path = try Self.text(json, type, fail)
            guard DBusNames.isObjectPath(path) else { throw fail("\"\(path.prefix(80))\" is not an object path") }
            self = .objectPath(path)
        case .signature:
            let signature = try Self.text(json, type, fail)
            do {
                _ = try DBusSignature.parse(signature)
            } catch {
                throw fail(error.description)
            }
            self = .signature(signature)
        case .unixFD:
            throw fail("unix file descriptors cannot be sent from mobiusd")
        case .array(let element):
            guard case .array(let items) = json else { throw fail("expected an array for \(type.name)") }
            var elements: [DBusArgument] = []
            elements.reserveCapacity(items.count)
            for (index, item) in items.enumerated() {
                elements.append(try DBusArgument(json: item, type: element, at: "\(place)[\(index)]", depth: depth + 1))
            }
            self = .array(element, elements)
        case .dictionary(let keyType, let valueType):
            guard case .object(let object) = json else { throw fail("expected an object for \(type.name)") }
            var entries: [(DBusArgument, DBusArgument)] = []
            for (key, value) in object.members {
                let memberPlace = "\(place)[\(String(decoding: JSONValue.string(key).encoded(), as: UTF8.self))]"
                let typedKey = try Self.key(key, keyType, at: memberPlace)
                let typedValue = try DBusArgument(json: value, type: valueType, at: memberPlace, depth: depth + 1)
                entries.append((typedKey, typedValue))
            }
            self = .dictionary(key: keyType, value: valueType, entries)
        case .structure(let fields):
            guard case .array(let items) = json, items.count == fields.count else {
                throw fail("expected an array of \(fields.count) values for the struct \(type.signature)")
            }
            var values: [DBusArgument] = []
            for (index, (item, field)) in zip(items, fields).enumerated() {
                values.append(try DBusArgument(json: item, type: field, at: "\(place)[\(index)]", depth: depth + 1))
            }
            self = .structure(values)
        case .variant:
            let (contained, value) = try Self.variantContent(json, fail)
            self = .variant(contained, try DBusArgument(json: value, type: contained, at: place, depth: depth + 1))
        }
    }

    private static func integer<T: FixedWidthInteger>(
        _ json: JSONValue, _: T.Type, _ type: DBusType, _ fail: (String) -> DBusArgumentError
    ) throws(DBusArgumentError) -> T {
        guard let number = json.numberValue else { throw fail("expected a whole number for \(type.name)") }
        if let exact = number.int64Value, let value = T(exactly: exact) { return value }
        if let exact = number.uint64Value, let value = T(exactly: exact) { return value }
        throw fail("\(number.literal.prefix(40)) does not fit \(type.name) (\(T.min)…\(T.max), whole numbers)")
    }

    private static func text(
        _ json: JSONValue, _ type: DBusType, _ fail: (String) -> DBusArgumentError
    ) throws(DBusArgumentError) -> String {
        guard case .string(let text) = json else { throw fail("expected a string for \(type.name)") }
        guard !text.utf8.contains(0) else { throw fail("a D-Bus string cannot contain a NUL character") }
        return text
    }

    private static func key(_ key: String, _ type: DBusType, at place: String) throws(DBusArgumentError) -> DBusArgument
    {
        let json: JSONValue
        switch type {
        case .string, .objectPath, .signature: json = .string(key)
        case .boolean:
            guard key == "true" || key == "false" else {
                throw DBusArgumentError(argument: place, problem: "the key must be \"true\" or \"false\"")
            }
            json = .bool(key == "true")
        default:
            guard let number = JSONNumber(literal: key) else {
                throw DBusArgumentError(argument: place, problem: "the key must be a number for \(type.name)")
            }
            json = .number(number)
        }
        return try DBusArgument(json: json, type: type, at: place, depth: 0)
    }

    private static func variantContent(
        _ json: JSONValue, _ fail: (String) -> DBusArgumentError
    ) throws(DBusArgumentError) -> (DBusType, JSONValue) {
        switch json {
        case .null: throw fail("null has no D-Bus type")
        case .bool: return (.boolean, json)
        case .string: return (.string, json)
        case .number(let number):
            if number.isInteger, number.int64Value != nil { return (.int64, json) }
            if number.isInteger, number.uint64Value != nil { return (.uint64, json) }
            return (.double, json)
        case .array: return (.array(.variant), json)
        case .object(let object):
            if object.count == 2, case .string(let signature)? = object["signature"], let value = object["value"] {
                do {
                    return (try DBusSignature.parseSingle(signature), value)
                } catch {
                    throw fail(error.description)
                }
            }
            return (.dictionary(key: .string, value: .variant), json)
        }
    }
}
