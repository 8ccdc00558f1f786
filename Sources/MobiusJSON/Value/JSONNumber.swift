/// A JSON number, kept exactly as it was written or created.
///
/// Integers that fit `Int64` or `UInt64` are stored as machine integers. Every other number
/// (fractions, exponents, `-0`, integers beyond 64 bits, absurd values like `1e999999`) keeps
/// its literal text, so it is written back byte for byte; ``doubleValue`` is its nearest
/// `Double` (±infinity when it is out of range).
///
/// Equality and hashing compare the exact decimal value: `1`, `1.0`, `1e0` and `10e-1` are
/// equal, `-0` equals `0`, and `0.1` differs from `0.1000000000000000055511151231257827`
/// even though both round to the same `Double`. A number created from a `Double` has the
/// decimal value of the shortest text that round-trips that `Double` (`0.1` for `0.1`).
public struct JSONNumber: Sendable {
    enum Storage: Sendable {
        case int(Int64)
        case uint(UInt64)  // only values above Int64.max
        case double(Double)  // finite; written as its shortest round-trip text
        case text(String)  // a valid JSON number literal
    }

    let storage: Storage

    init(storage: Storage) {
        self.storage = storage
    }

    /// Creates an integer number.
    public init(_ value: Int64) {
        storage = .int(value)
    }

    /// Creates an integer number.
    public init(_ value: Int) {
        storage = .int(Int64(value))
    }

    /// Creates an unsigned integer number; values up to `Int64.max` are stored as `Int64`.
    public init(_ value: UInt64) {
        storage = value <= UInt64(Int64.max) ? .int(Int64(value)) : .uint(value)
    }

    /// Creates a number from a finite `Double`; returns `nil` for NaN and ±infinity,
    /// which JSON cannot express.
    public init?(_ value: Double) {
        guard value.isFinite else { return nil }
        storage = .double(value)
    }

    /// Creates a number from JSON number text such as `"-12.5e3"`; returns `nil` when the
    /// text is not exactly one RFC 8259 number (no whitespace, no leading `+`, no leading zeros).
    public init?(literal text: String) {
        let bytes = Array(text.utf8)
        let parsed: JSONNumber? = bytes.withUnsafeBytes { raw in
            var parser = ParserCore(buffer: raw, maxDepth: 1, duplicateKeys: .lastWins)
            guard let first = raw.first, first == UInt8(ascii: "-") || ParserCore.isDigit(first),
                let number = try? parser.parseNumber(), parser.position == raw.count
            else { return nil }
            return number
        }
        guard let parsed else { return nil }
        self = parsed
    }

    /// The number as it is written in JSON: exact integers in decimal, doubles as their
    /// shortest round-trip text, every other number as its original literal.
    public var literal: String {
        switch storage {
        case .int(let value): return String(value)
        case .uint(let value): return String(value)
        case .double(let value): return JSONNumber.shortestText(value)
        case .text(let text): return text
        }
    }

    /// The nearest `Double`; ±infinity for magnitudes beyond `Double.greatestFiniteMagnitude`.
    public var doubleValue: Double {
        switch storage {
        case .int(let value): return Double(value)
        case .uint(let value): return Double(value)
        case .double(let value): return value
        case .text(let text): return Double(text) ?? .nan
        }
    }

    /// The value as `Int64` when the number is an integer in range (`2`, `2.0` and `2e0` all
    /// give 2); otherwise `nil`.
    public var int64Value: Int64? {
        switch storage {
        case .int(let value): return value
        case .uint: return nil
        case .double, .text: return decimal.int64
        }
    }

    /// The value as `UInt64` when the number is a non-negative integer in range; otherwise `nil`.
    public var uint64Value: UInt64? {
        switch storage {
        case .int(let value): return value >= 0 ? UInt64(value) : nil
        case .uint(let value): return value
        case .double, .text: return decimal.uint64
        }
    }

    /// Whether the number was written or created as an exact 64-bit integer.
    public var isInteger: Bool {
        switch storage {
        case .int, .uint: return true
        case .double, .text: return false
        }
    }

    /// Swift's shortest round-trip text for a finite `Double` without a trailing `.0`, as Foundation's
    /// `JSONEncoder` writes it: `21`, `-0`, `0.1`, `1e+16`, `1000000000000000`.
    static func shortestText(_ value: Double) -> String {
        // Swift writes "1e+100", "5e-324", "21.0", "-0.0": all valid JSON numbers; Foundation drops the ".0".
        let text = value.description
        return text.hasSuffix(".0") ? String(text.dropLast(2)) : text
    }

    /// The exact decimal value, for equality and hashing.
    var decimal: DecimalValue {
        switch storage {
        case .int(let value): return DecimalValue(integer: value.magnitude, negative: value < 0)
        case .uint(let value): return DecimalValue(integer: value, negative: false)
        case .double(let value): return DecimalValue(literal: JSONNumber.shortestText(value))
        case .text(let text): return DecimalValue(literal: text)
        }
    }
}

extension JSONNumber: Hashable {
    /// Compares exact decimal values (see ``JSONNumber``).
    public static func == (lhs: JSONNumber, rhs: JSONNumber) -> Bool {
        switch (lhs.storage, rhs.storage) {
        case (.int(let a), .int(let b)): return a == b
        case (.uint(let a), .uint(let b)): return a == b
        case (.int, .uint), (.uint, .int): return false
        default: return lhs.decimal == rhs.decimal
        }
    }

    /// Hashes the exact decimal value, consistently with `==`.
    public func hash(into hasher: inout Hasher) {
        switch storage {
        case .int(let value): DecimalValue.hashInteger(value.magnitude, negative: value < 0, into: &hasher)
        case .uint(let value): DecimalValue.hashInteger(value, negative: false, into: &hasher)
        case .double, .text: decimal.hash(into: &hasher)
        }
    }
}

extension JSONNumber: CustomStringConvertible {
    /// The JSON text of the number (``literal``).
    public var description: String { literal }
}

extension JSONNumber: ExpressibleByIntegerLiteral, ExpressibleByFloatLiteral {
    /// Creates an integer number from a literal.
    public init(integerLiteral value: Int64) {
        self.init(value)
    }

    /// Creates a number from a floating-point literal; traps for non-finite values.
    public init(floatLiteral value: Double) {
        guard let number = JSONNumber(value) else { preconditionFailure("JSON numbers must be finite") }
        self = number
    }
}
