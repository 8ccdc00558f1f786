/// An RFC 6901 JSON Pointer such as `/foo/0/a~1b`.
///
/// `""` points at the whole document. Each reference token selects an object member by
/// name or an array element by index; `~1` stands for `/` and `~0` for `~`.
public struct JSONPointer: Sendable, Hashable {
    /// The unescaped reference tokens, outermost first.
    public let tokens: [String]

    /// The most reference tokens a parsed pointer may have: the parser's nesting limit, since a longer pointer
    /// cannot point into any value it accepts (and code walking a pointer never recurses past it).
    public static let maxTokens = JSONParser.defaultMaxDepth

    /// Parses the string form of a pointer.
    ///
    /// - Throws: ``JSONPointerError`` when the string is neither empty nor starts with `/`,
    ///   a `~` is not followed by `0` or `1`, or it has more than ``maxTokens`` tokens.
    public init(_ string: String) throws(JSONPointerError) {
        guard !string.isEmpty else {
            tokens = []
            return
        }
        let bytes = Array(string.utf8)
        guard bytes[0] == UInt8(ascii: "/") else {
            throw JSONPointerError(
                pointer: string, offset: 0, message: "a JSON Pointer must be empty or start with '/'")
        }
        var tokens: [String] = []
        var current: [UInt8] = []
        var offset = 1
        while offset < bytes.count {
            let byte = bytes[offset]
            if byte == UInt8(ascii: "/") {
                guard tokens.count + 1 < Self.maxTokens else {
                    throw JSONPointerError(
                        pointer: string, offset: offset,
                        message: "a JSON Pointer may have at most \(Self.maxTokens) tokens")
                }
                tokens.append(String(decoding: current, as: UTF8.self))
                current.removeAll(keepingCapacity: true)
            } else if byte == UInt8(ascii: "~") {
                let next = offset + 1 < bytes.count ? bytes[offset + 1] : 0
                switch next {
                case UInt8(ascii: "0"): current.append(UInt8(ascii: "~"))
                case UInt8(ascii: "1"): current.append(UInt8(ascii: "/"))
                default:
                    throw JSONPointerError(
                        pointer: string, offset: offset, message: "'~' must be followed by '0' or '1'")
                }
                offset += 1
            } else {
                current.append(byte)
            }
            offset += 1
        }
        tokens.append(String(decoding: current, as: UTF8.self))
        self.tokens = tokens
    }

    /// Creates a pointer from unescaped reference tokens.
    public init(tokens: [String]) {
        self.tokens = tokens
    }

    /// The value the pointer selects in `document`, or `nil` when it is absent: a missing
    /// member, an index out of range, `-` (past the end), an index with a leading zero or
    /// a sign, or a token applied to a scalar.
    public func value(in document: JSONValue) -> JSONValue? {
        var current = document
        for token in tokens {
            switch current {
            case .object(let object):
                guard let member = object[token] else { return nil }
                current = member
            case .array(let elements):
                guard let index = JSONPointer.arrayIndex(token), index < elements.count else { return nil }
                current = elements[index]
            default:
                return nil
            }
        }
        return current
    }

    /// The pointer with one more token.
    public func appending(_ token: String) -> JSONPointer {
        JSONPointer(tokens: tokens + [token])
    }

    /// Parses an RFC 6901 array index: `0` or digits without a leading zero.
    static func arrayIndex(_ token: String) -> Int? {
        let bytes = token.utf8
        guard let first = bytes.first, first >= UInt8(ascii: "0"), first <= UInt8(ascii: "9") else { return nil }
        if first == UInt8(ascii: "0") && bytes.count > 1 { return nil }
        guard bytes.allSatisfy({ $0 >= UInt8(ascii: "0") && $0 <= UInt8(ascii: "9") }) else { return nil }
        return Int(token)  // nil on overflow: such an index is absent anyway
    }
}

extension JSONPointer: CustomStringConvertible {
    /// The string form, with `~` written as `~0` and `/` as `~1`.
    public var description: String {
        var result = String.UnicodeScalarView()
        for token in tokens {
            result.append("/")
            // Scalar by scalar: a `~` that a combining mark follows is one `Character` with it, which a search for
            // the character `~` misses.
            for scalar in token.unicodeScalars {
                switch scalar {
                case "~": result.append(contentsOf: "~0".unicodeScalars)
                case "/": result.append(contentsOf: "~1".unicodeScalars)
                default: result.append(scalar)
                }
            }
        }
        return String(result)
    }
}
