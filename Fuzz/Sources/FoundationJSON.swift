import Foundation
import MobiusJSON

/// Foundation's `JSONSerialization`, the reference the JSON target compares with, and the two translations between
/// its values and ours.
enum FoundationJSON {
    /// Why Foundation refused a text, in its words.
    struct Refusal: Error {
        let message: String
    }

    /// Foundation's value for `bytes` (fragments allowed, as MobiusJSON allows any top-level value), or its reason.
    static func parse(_ bytes: [UInt8]) -> Result<Any, Refusal> {
        do {
            return .success(try JSONSerialization.jsonObject(with: Data(bytes), options: [.fragmentsAllowed]))
        } catch {
            return .failure(
                Refusal(message: ((error as NSError).userInfo[NSDebugDescriptionErrorKey] as? String) ?? "\(error)"))
        }
    }

    /// Foundation's text for one of its values.
    static func write(_ object: Any) -> [UInt8]? {
        (try? JSONSerialization.data(withJSONObject: object, options: [.fragmentsAllowed])).map { Array($0) }
    }

    /// One of Foundation's values as ours. `NSNumber` is ambiguous: booleans are told by their class, integers from
    /// doubles by their `objCType`.
    static func value(_ object: Any) -> JSONValue {
        switch object {
        case is NSNull:
            return .null
        case let string as String:
            return .string(string)
        case let array as [Any]:
            return .array(array.map(value))
        case let dictionary as [String: Any]:
            return .object(JSONObject(dictionary.map { ($0.key, value($0.value)) }))
        case let number as NSNumber:
            if type(of: number) == type(of: NSNumber(value: true)) { return .bool(number.boolValue) }
            if let decimal = number as? NSDecimalNumber, let exact = JSONNumber(literal: decimal.stringValue) {
                return .number(exact)
            }
            switch String(cString: number.objCType) {
            case "d", "f": return JSONNumber(number.doubleValue).map(JSONValue.number) ?? .null
            case "Q": return .number(JSONNumber(number.uint64Value))
            default: return .number(JSONNumber(number.int64Value))
            }
        default:
            check(false, "Foundation gave a \(type(of: object))")
            return .null
        }
    }

    /// A value as the comparison sees it (`JSONFuzz.Difference`): a number whose value is an integer a `Double` holds
    /// exactly (at most 2^53 in magnitude) as that integer (`2.0` is 2), any other as its nearest `Double`, zero
    /// without a sign, and no U+FEFF in strings. Foundation reads a number with a fraction or an exponent as a
    /// `Double`, so `37201685477580826e-0` is 37201685477580824 to it and exactly 37201685477580826 to us.
    static func asFoundationSees(_ value: JSONValue) -> JSONValue {
        switch value {
        case .number(let number):
            if let exact = number.int64Value, exact.magnitude <= 1 << 53 { return .number(JSONNumber(exact)) }
            let nearest = number.doubleValue
            return nearest == 0 ? 0 : JSONNumber(nearest).map(JSONValue.number) ?? value
        case .string, .array, .object:
            return withoutByteOrderMarks(value).mapChildren(asFoundationSees)
        default:
            return value
        }
    }

    /// `value` with every U+FEFF taken out of its strings and keys.
    static func withoutByteOrderMarks(_ value: JSONValue) -> JSONValue {
        func clean(_ text: String) -> String {
            text.unicodeScalars.contains("\u{FEFF}")
                ? String(String.UnicodeScalarView(text.unicodeScalars.filter { $0 != "\u{FEFF}" })) : text
        }
        switch value {
        case .string(let text): return .string(clean(text))
        case .array(let items): return .array(items.map(withoutByteOrderMarks))
        case .object(let object):
            return .object(JSONObject(object.members.map { (clean($0.key), withoutByteOrderMarks($0.value)) }))
        default: return value
        }
    }
}
