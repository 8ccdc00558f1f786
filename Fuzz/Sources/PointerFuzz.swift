import MobiusJSON

/// RFC 6901 JSON Pointers (docs/json.md, "JSON Pointer"): a pointer string and a document, split at the first
/// newline.
///
/// Oracles: nothing traps; a pointer is accepted exactly when it is empty or starts with `/`, every `~` is followed by
/// `0` or `1`, and it has at most `maxTokens` tokens; an accepted pointer's `description` is the input again, and
/// parses to the same tokens; a refusal's offset lies inside the pointer; `value(in:)` finds what a walk written here
/// finds; and for every value in the document, the pointer built from its path finds exactly it.
enum PointerFuzz {
    static func run(_ bytes: [UInt8]) {
        let newline = bytes.firstIndex(of: UInt8(ascii: "\n")) ?? bytes.endIndex
        let text = String(decoding: bytes[..<newline], as: UTF8.self)
        let document = newline < bytes.endIndex ? try? JSONValue(parsing: bytes[(newline + 1)...]) : nil
        checkParsing(text, document)
        if let document { checkEveryPath(in: document) }
    }

    static func checkParsing(_ text: String, _ document: JSONValue?) {
        let utf8 = Array(text.utf8)
        let escapesValid = utf8.indices.allSatisfy { index in
            utf8[index] != UInt8(ascii: "~")
                || (index + 1 < utf8.count
                    && (utf8[index + 1] == UInt8(ascii: "0") || utf8[index + 1] == UInt8(ascii: "1")))
        }
        let tokenCount = utf8.filter { $0 == UInt8(ascii: "/") }.count
        let valid =
            utf8.isEmpty || (utf8.first == UInt8(ascii: "/") && escapesValid && tokenCount <= JSONPointer.maxTokens)
        let parsed = Result { () throws(JSONPointerError) in try JSONPointer(text) }
        switch parsed {
        case .success(let pointer):
            check(valid, "accepted \(text.debugDescription)")
            check(
                pointer.description == text,
                "\(text.debugDescription) reads back as \(pointer.description.debugDescription)")
            check(pointer.tokens.count == tokenCount, "\(text.debugDescription) has \(pointer.tokens.count) tokens")
            check((try? JSONPointer(pointer.description))?.tokens == pointer.tokens, "tokens do not round-trip")
            if let document {
                check(pointer.value(in: document) == walk(document, pointer.tokens), "value(in:) differs for \(text)")
            }
        case .failure(let error):
            check(!valid, "refused \(text.debugDescription): \(error)")
            check(error.offset >= 0 && error.offset < max(utf8.count, 1), "offset \(error.offset) outside the pointer")
            check(error.description.utf8.count < 400, "a \(utf8.count)-byte pointer got a long message")
        }
    }

    /// RFC 6901 section 4, written out: a member by name, or an element by an index without sign or leading zero.
    static func walk(_ document: JSONValue, _ tokens: [String]) -> JSONValue? {
        var current = document
        for token in tokens {
            switch current {
            case .object(let object):
                guard let member = object.members.last(where: { $0.key == token }) else { return nil }
                current = member.value
            case .array(let items):
                let digits = Array(token.utf8)
                guard !digits.isEmpty, digits.allSatisfy({ (48...57).contains($0) }), digits == [48] || digits[0] != 48,
                    let index = Int(token), index < items.count
                else { return nil }
                current = items[index]
            default:
                return nil
            }
        }
        return current
    }

    /// The pointer made from each value's path finds that value, through its string form too.
    static func checkEveryPath(in document: JSONValue) {
        var pending: [([String], JSONValue)] = [([], document)]
        var visited = 0
        while let (path, value) = pending.popLast(), visited < 4096 {
            visited += 1
            let pointer = JSONPointer(tokens: path)
            check(pointer.value(in: document) == value, "the path \(path) does not find its value")
            let reparsed = try? JSONPointer(pointer.description)
            check(reparsed?.tokens == path, "\(pointer.description.debugDescription) does not parse back to \(path)")
            switch value {
            case .array(let items): pending += items.enumerated().map { (path + [String($0.offset)], $0.element) }
            case .object(let object): pending += object.members.map { (path + [$0.key], $0.value) }
            default: break
            }
        }
    }
}
