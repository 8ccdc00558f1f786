import MobiusJSON

/// The typed values of an exposure's configured properties, kept by its bus thread: each is the model's value at the
/// property's JSON Pointer, typed as configured. A value that does not fit (absent, of another kind, out of range, a
/// string with a NUL, text over `maxTextBytes`) leaves the property at its last good value, which starts as the
/// type's zero (`0`, `false`, `""`, `/`).
struct ExposedValues {
    let properties: [ExposedProperty]
    private(set) var values: [DBusArgument]
    /// Why each property's current model value does not fit, or `nil` when it does.
    private var problems: [String?]

    /// The longest text a property takes (a string, or a value's JSON text for `s`): a `PropertiesChanged` with
    /// every property at this size stays far below the system bus's 32 MiB message limit.
    static let maxTextBytes = 65_536

    init(properties: [ExposedProperty]) {
        self.properties = properties
        values = properties.map { Self.zero($0.type) }
        problems = properties.map { _ in nil }
    }

    /// A property whose model value stopped fitting (or fits for another reason than before).
    struct Problem {
        let property: String
        let description: String
    }

    /// Reads every property from `model`. Returns the indices of the properties whose value changed, and the
    /// problems that are new since the last model (a value that stays bad the same way is reported once).
    mutating func update(from model: JSONValue) -> (changed: [Int], problems: [Problem]) {
        var changed: [Int] = []
        var fresh: [Problem] = []
        for (index, property) in properties.enumerated() {
            switch Self.typed(property.pointer.value(in: model), as: property) {
            case .success(let value):
                problems[index] = nil
                if value != values[index] {
                    values[index] = value
                    changed.append(index)
                }
            case .failure(let problem):
                if problems[index] != problem.description {
                    fresh.append(Problem(property: property.name, description: problem.description))
                }
                problems[index] = problem.description
            }
        }
        return (changed, fresh)
    }

    /// `value` typed as `property` says: `s` takes a string as itself and any other value as its compact JSON
    /// text; every other type as `mobiusd.dbus.call` arguments are typed (docs/dbus.md, "Typing arguments").
    static func typed(_ value: JSONValue?, as property: ExposedProperty) -> Result<DBusArgument, DBusArgumentError> {
        let pointer = property.pointer.description
        let place = "\(property.name) (\(pointer.isEmpty ? "the whole model" : pointer))"
        guard let value else {
            return .failure(DBusArgumentError(argument: place, problem: "the model has no value there"))
        }
        var text: String?
        if property.type == .string {
            if case .string(let string) = value {
                text = string
            } else {
                text = String(decoding: value.encoded(), as: UTF8.self)
            }
        } else if case .string(let string) = value {
            text = string
        }
        if let text, text.utf8.count > maxTextBytes {
            return .failure(
                DBusArgumentError(
                    argument: place,
                    problem: "\(text.utf8.count) bytes of text, over the \(maxTextBytes) a property takes"))
        }
        if property.type == .string, let text {
            guard !text.utf8.contains(0) else {
                return .failure(
                    DBusArgumentError(argument: place, problem: "a D-Bus string cannot contain a NUL character"))
            }
            return .success(.string(text))
        }
        return Result { () throws(DBusArgumentError) in
            try DBusArgument(json: value, type: property.type, at: place, depth: 0)
        }
    }

    /// The value a property has before the model ever gave it a good one.
    static func zero(_ type: DBusType) -> DBusArgument {
        switch type {
        case .byte: .byte(0)
        case .boolean: .boolean(false)
        case .int16: .int16(0)
        case .uint16: .uint16(0)
        case .int32: .int32(0)
        case .uint32: .uint32(0)
        case .int64: .int64(0)
        case .uint64: .uint64(0)
        case .double: .double(0)
        case .objectPath: .objectPath("/")
        case .signature: .signature("")
        default: .string("")
        }
    }
}
