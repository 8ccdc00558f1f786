/// A person's sentence for a `DecodingError`: the field, then what JSON was expected, never a Swift type the
/// sender cannot see (`setTarget: expected a JSON object`, not `Dictionary<String, JSONValue>`).
public enum JSONDecodingMessage {
    /// `FIELD: PROBLEM`, where FIELD is the coding path as `a.b[2].c` (`(top level)` when empty): `expected a
    /// number, found null`, `missing field "zip"`, or the decoder's own text for corrupt data (`Number 300 is not
    /// representable in UInt8.`).
    public static func message(for error: DecodingError) -> String {
        switch error {
        case .typeMismatch(let type, let context):
            if context.debugDescription == enumMemberCount {
                // Swift's synthesized enum decoding, for an object whose members name no case or several: say
                // what the shape is rather than count keys the sender did write (`{"type":"reset"}` has one).
                return "\(field(context.codingPath)): expected exactly one member, named after a case: {\"CASE\":{…}}"
            }
            guard let expected = jsonKind(type) else {
                return "\(field(context.codingPath)): \(context.debugDescription)"
            }
            return "\(field(context.codingPath)): expected \(expected)\(found(context.debugDescription))"
        case .valueNotFound(let type, let context):
            return "\(field(context.codingPath)): expected \(jsonKind(type) ?? "a value"), found null"
        case .keyNotFound(let key, let context):
            let owner = context.codingPath.isEmpty ? "" : "\(field(context.codingPath)): "
            return "\(owner)missing field \"\(key.stringValue)\""
        case .dataCorrupted(let context):
            return "\(field(context.codingPath)): \(context.debugDescription)"
        @unknown default:
            return "\(error)"
        }
    }

    /// What Swift's synthesized `init(from:)` of an enum says when the object does not have exactly one member
    /// that names a case (members that name none are not counted).
    static let enumMemberCount = "Invalid number of keys found, expected one."

    /// The coding path as a field name: keys joined by dots, array positions as `[N]`.
    static func field(_ path: [any CodingKey]) -> String {
        guard !path.isEmpty else { return "(top level)" }
        var text = ""
        for key in path {
            if let index = key.intValue, key.stringValue == "Index \(index)" {
                text += "[\(index)]"
            } else {
                text += text.isEmpty ? key.stringValue : ".\(key.stringValue)"
            }
        }
        return text
    }

    /// The JSON type a decoder asked for, for the types ``JSONValueDecoder`` and Foundation report; `nil` for an
    /// app's own type, whose decoder wrote its own text.
    static func jsonKind(_ type: Any.Type) -> String? {
        switch type {
        case is [String: JSONValue].Type, is [String: Any].Type: return "a JSON object"
        case is [JSONValue].Type, is [Any].Type: return "a JSON array"
        case is String.Type, is Character.Type: return "a string"
        case is Bool.Type: return "true or false"
        case is Double.Type, is Float.Type: return "a number"
        case is any FixedWidthInteger.Type: return "an integer"
        default: return nil
        }
    }

    /// `, found a string` from ``JSONValueDecoder``'s `… but found a string instead.`, else empty.
    static func found(_ description: String) -> String {
        guard let start = description.firstRange(of: " but found "), description.hasSuffix(" instead.") else {
            return ""
        }
        let what = description[start.upperBound...].dropLast(" instead.".count)
        switch what {
        case "number": return ", found a number"
        case "bool": return ", found true or false"
        case "a dictionary": return ", found a JSON object"
        case "an array": return ", found a JSON array"
        default: return ", found \(what)"
        }
    }
}
