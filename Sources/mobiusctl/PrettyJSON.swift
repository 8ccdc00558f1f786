import MobiusJSON

/// Multi-line JSON with 2-space indentation, members in order (like `JSON.stringify(value, null, 2)`).
enum PrettyJSON {
    /// The indented text of `value`, without a trailing newline.
    static func text(_ value: JSONValue) -> String {
        var output = ""
        append(value, indent: 0, to: &output)
        return output
    }

    /// The compact one-line text of `value`.
    static func compact(_ value: JSONValue) -> String {
        String(decoding: value.encoded(), as: UTF8.self)
    }

    private static func append(_ value: JSONValue, indent: Int, to output: inout String) {
        let inner = String(repeating: " ", count: indent + 2)
        switch value {
        case .array(let elements) where !elements.isEmpty:
            output += "[\n"
            for (position, element) in elements.enumerated() {
                output += inner
                append(element, indent: indent + 2, to: &output)
                output += position == elements.count - 1 ? "\n" : ",\n"
            }
            output += String(repeating: " ", count: indent) + "]"
        case .object(let object) where !object.isEmpty:
            output += "{\n"
            for (position, member) in object.members.enumerated() {
                output += inner + compact(.string(member.key)) + ": "
                append(member.value, indent: indent + 2, to: &output)
                output += position == object.count - 1 ? "\n" : ",\n"
            }
            output += String(repeating: " ", count: indent) + "}"
        default:
            output += compact(value)
        }
    }
}
