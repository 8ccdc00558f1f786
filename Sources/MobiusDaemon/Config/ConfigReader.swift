import MobiusJSON

/// Reads typed values out of a JSON object, naming the full key path in every error and rejecting keys it was not
/// asked about.
struct ConfigReader {
    let object: JSONObject
    let path: String
    private var seen: Set<String> = []

    init(_ value: JSONValue, path: String) throws(ConfigError) {
        guard case .object(let object) = value else {
            throw ConfigError(key: path.isEmpty ? "(top level)" : path, "must be a JSON object")
        }
        self.object = object
        self.path = path
    }

    func keyPath(_ key: String) -> String { path.isEmpty ? key : "\(path).\(key)" }

    /// The raw value of `key`, `nil` when absent or `null`.
    mutating func value(_ key: String) -> JSONValue? {
        seen.insert(key)
        guard let value = object[key], !value.isNull else { return nil }
        return value
    }

    /// A string; any other type fails with `expected` (default `must be a string`) and what was given instead.
    mutating func string(_ key: String, expected: String = "must be a string") throws(ConfigError) -> String? {
        guard let value = value(key) else { return nil }
        guard case .string(let text) = value else {
            throw ConfigError(key: keyPath(key), "\(expected), not \(Self.describe(value))")
        }
        return text
    }

    /// What a JSON value is, for "must be X, not Y": `the number 660`, `an object`.
    static func describe(_ value: JSONValue) -> String {
        switch value {
        case .object: return "an object"
        case .array: return "an array"
        case .string: return "a string"
        case .null: return "null"
        case .bool(let flag): return flag ? "true" : "false"
        case .number(let number):
            // A short number shows the mistake best as written.
            return number.literal.utf8.count <= 32 ? "the number \(number.literal)" : "a number"
        }
    }

    mutating func integer(_ key: String, range: ClosedRange<Int>) throws(ConfigError) -> Int? {
        guard let value = value(key) else { return nil }
        guard let number = value.int64Value, range.contains(Int(number)) else {
            throw ConfigError(key: keyPath(key), "must be an integer from \(range.lowerBound) to \(range.upperBound)")
        }
        return Int(number)
    }

    /// A duration in seconds within `range`: every duration the daemon turns into a timer or a deadline is
    /// bounded here, so no value can overflow a conversion later.
    mutating func seconds(_ key: String, range: ClosedRange<Double>) throws(ConfigError) -> Double? {
        guard let value = value(key) else { return nil }
        guard let number = value.doubleValue, number.isFinite, range.contains(number) else {
            throw ConfigError(
                key: keyPath(key),
                "must be a number of seconds from \(Self.format(range.lowerBound)) to \(Self.format(range.upperBound))")
        }
        return number
    }

    private static func format(_ seconds: Double) -> String {
        seconds == seconds.rounded() ? String(Int(seconds)) : String(seconds)
    }

    mutating func bool(_ key: String) throws(ConfigError) -> Bool? {
        guard let value = value(key) else { return nil }
        guard let flag = value.boolValue else { throw ConfigError(key: keyPath(key), "must be true or false") }
        return flag
    }

    mutating func strings(_ key: String) throws(ConfigError) -> [String]? {
        guard let value = value(key) else { return nil }
        guard case .array(let items) = value else {
            throw ConfigError(key: keyPath(key), "must be an array of strings")
        }
        var result: [String] = []
        for (index, item) in items.enumerated() {
            guard case .string(let text) = item else {
                throw ConfigError(key: "\(keyPath(key))[\(index)]", "must be a string")
            }
            result.append(text)
        }
        return result
    }

    /// A nested reader for an object-valued key, or `nil` when absent.
    mutating func section(_ key: String) throws(ConfigError) -> ConfigReader? {
        guard let value = value(key) else { return nil }
        return try ConfigReader(value, path: keyPath(key))
    }

    /// Fails on the first key that no accessor asked for, suggesting the asked-for key closest to it.
    func rejectUnknownKeys() throws(ConfigError) {
        if let unknown = object.keys.first(where: { !seen.contains($0) }) {
            throw ConfigError(key: keyPath(unknown), "unknown key" + ConfigSuggestion.hint(for: unknown, among: seen))
        }
    }
}
