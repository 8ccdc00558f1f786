import Foundation
import MobiusJSON

/// SplitMix64: a tiny seeded generator so generated and fuzzed inputs are the same every run.
struct SeededGenerator: RandomNumberGenerator {
    private var state: UInt64

    init(seed: UInt64) {
        state = seed
    }

    mutating func next() -> UInt64 {
        state &+= 0x9E37_79B9_7F4A_7C15
        var mixed = state
        mixed = (mixed ^ (mixed >> 30)) &* 0xBF58_476D_1CE4_E5B9
        mixed = (mixed ^ (mixed >> 27)) &* 0x94D0_49BB_1331_11EB
        return mixed ^ (mixed >> 31)
    }
}

/// Parses UTF-8 text, returning the error instead of throwing.
func parseResult(_ text: String, parser: JSONParser = JSONParser()) -> Result<JSONValue, JSONParseError> {
    Result { () throws(JSONParseError) in try parser.parse(text) }
}

func parseResult(_ bytes: [UInt8], parser: JSONParser = JSONParser()) -> Result<JSONValue, JSONParseError> {
    Result { () throws(JSONParseError) in try parser.parse(bytes) }
}

func encodedText(_ value: JSONValue) -> String {
    String(decoding: value.encoded(), as: UTF8.self)
}

/// Generates random JSON documents: nested objects and arrays, strings with escapes and
/// non-ASCII text, integers (64-bit edges included) and doubles.
struct DocumentGenerator {
    var random: SeededGenerator

    private static let alphabet: [String] = [
        "a", "b", "z", "K", "0", " ", "\"", "\\", "/", "\n", "\t", "\r", "\u{08}", "\u{0C}", "\u{01}", "\u{1F}",
        "\u{7F}", "é", "ß", "€", "中", "😀", "\u{10FFFF}", "\u{FEFF}", "\u{2028}", "\0",
    ]

    mutating func value(depth: Int) -> JSONValue {
        let pick = Int.random(in: 0..<(depth > 4 ? 6 : 8), using: &random)
        switch pick {
        case 0: return .null
        case 1: return .bool(Bool.random(using: &random))
        case 2: return .number(integer())
        case 3: return .number(JSONNumber(Double.random(in: -1e6...1e6, using: &random))!)
        case 4, 5: return .string(string())
        case 6:
            return .array((0..<Int.random(in: 0...4, using: &random)).map { _ in value(depth: depth + 1) })
        default:
            var object = JSONObject()
            for index in 0..<Int.random(in: 0...4, using: &random) {
                object["\(string())\(index)"] = value(depth: depth + 1)
            }
            return .object(object)
        }
    }

    mutating func integer() -> JSONNumber {
        switch Int.random(in: 0..<5, using: &random) {
        case 0: return JSONNumber([Int64.min, Int64.max, 0, -1, 9_007_199_254_740_993].randomElement(using: &random)!)
        case 1: return JSONNumber(UInt64.random(in: UInt64(Int64.max)...UInt64.max, using: &random))
        default: return JSONNumber(Int64.random(in: -100_000...100_000, using: &random))
        }
    }

    mutating func string() -> String {
        let length = Int.random(in: 0...8, using: &random)
        return (0..<length).map { _ in DocumentGenerator.alphabet.randomElement(using: &random)! }.joined()
    }

    /// Writes `value` as JSON text with random whitespace and escape spellings, so the
    /// parser sees more than the canonical form.
    mutating func text(_ value: JSONValue) -> String {
        let space = [" ", "", "", "\n", "\t", "\r\n"].randomElement(using: &random)!
        switch value {
        case .string(let string): return quoted(string)
        case .array(let elements): return "[" + space + elements.map { text($0) }.joined(separator: "," + space) + "]"
        case .object(let object):
            let members = object.map { quoted($0.key) + space + ":" + text($0.value) }
            return "{" + space + members.joined(separator: space + ",") + space + "}"
        default: return encodedText(value)
        }
    }

    private mutating func quoted(_ string: String) -> String {
        var result = "\""
        for scalar in string.unicodeScalars {
            switch scalar {
            case "\"": result += "\\\""
            case "\\": result += "\\\\"
            case "/" where Bool.random(using: &random): result += "\\/"
            case _ where scalar.value < 0x20 || Int.random(in: 0..<6, using: &random) == 0:
                result += escaped(scalar)
            default: result.unicodeScalars.append(scalar)
            }
        }
        return result + "\""
    }

    private func escaped(_ scalar: Unicode.Scalar) -> String {
        func hex(_ unit: UInt32) -> String {
            let digits = String(unit, radix: 16, uppercase: unit % 2 == 0)
            return "\\u" + String(repeating: "0", count: 4 - digits.count) + digits
        }
        if scalar.value > 0xFFFF {
            let offset = scalar.value - 0x10000
            return hex(0xD800 + (offset >> 10)) + hex(0xDC00 + (offset & 0x3FF))
        }
        return hex(scalar.value)
    }
}

/// Converts JSONSerialization's result into a JSONValue for comparison. NSNumber is
/// ambiguous: booleans are told apart by their class, integers by their objCType.
func jsonValue(fromFoundation object: Any) -> JSONValue {
    switch object {
    case is NSNull:
        return .null
    case let string as String:
        return .string(string)
    case let array as [Any]:
        return .array(array.map(jsonValue(fromFoundation:)))
    case let dictionary as [String: Any]:
        var result = JSONObject()
        for (key, value) in dictionary { result[key] = jsonValue(fromFoundation: value) }
        return .object(result)
    case let number as NSNumber:
        if type(of: number) == type(of: NSNumber(value: true)) { return .bool(number.boolValue) }
        if let decimal = number as? NSDecimalNumber { return .number(JSONNumber(literal: decimal.stringValue)!) }
        switch String(cString: number.objCType) {
        case "d", "f": return .number(JSONNumber(number.doubleValue)!)
        case "Q": return .number(JSONNumber(number.uint64Value))
        default: return .number(JSONNumber(number.int64Value))
        }
    default:
        fatalError("unexpected Foundation value \(object)")
    }
}

/// Foundation's verdict on `bytes`, with fragments allowed like our parser.
func foundationParse(_ bytes: [UInt8]) -> Any? {
    try? JSONSerialization.jsonObject(with: Data(bytes), options: [.fragmentsAllowed])
}

/// `value` with every U+FEFF removed from strings and keys: JSONSerialization drops that
/// character at the start of a string and after an escape (a known Foundation quirk), so
/// differential comparisons ignore it; ``KnownDisagreementTests`` shows the difference.
func removingByteOrderMarks(_ value: JSONValue) -> JSONValue {
    func clean(_ string: String) -> String {
        String(String.UnicodeScalarView(string.unicodeScalars.filter { $0 != "\u{FEFF}" }))
    }
    switch value {
    case .string(let string): return .string(clean(string))
    case .array(let elements): return .array(elements.map(removingByteOrderMarks))
    case .object(let object):
        return .object(JSONObject(object.map { (clean($0.key), removingByteOrderMarks($0.value)) }))
    default: return value
    }
}

/// Our value and Foundation's agree, ignoring U+FEFF (see ``removingByteOrderMarks(_:)``).
func agree(_ ours: JSONValue, _ foundation: Any) -> Bool {
    removingByteOrderMarks(ours) == removingByteOrderMarks(jsonValue(fromFoundation: foundation))
}
