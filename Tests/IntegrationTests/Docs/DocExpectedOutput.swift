import Foundation

/// The output a shell block of the docs says it prints: each comment that starts with a JSON object, on a line of its
/// own (`# {"ok":true,"seq":2}`) or after a command (`echo … | socat …   # {"ok":true,"seq":1}`). The object is the
/// expected line (`…` in it stands for any text); anything after it is prose. The block's stdout must hold the
/// expected lines in the order the block gives them.
struct DocExpectedOutput {
    /// The expected lines, in the block's order.
    let lines: [String]

    init(_ body: String) {
        var found: [String] = []
        for line in body.split(separator: "\n") {
            guard let hash = line.range(of: "# {") else { continue }
            let before = line[..<hash.lowerBound]
            // A comment is a `#` at the start of the line or after a space (not `$#`, not inside a word).
            guard before.isEmpty || before.hasSuffix(" ") else { continue }
            if let object = Self.leadingObject(line[line.index(hash.lowerBound, offsetBy: 2)...]) {
                found.append(object)
            }
        }
        lines = found
    }

    /// The expected lines that `output` lacks (in order: each must come after the one before), empty when none.
    func missing(from output: String) -> [String] {
        var remaining = output.split(separator: "\n").map(String.init)[...]
        var missing: [String] = []
        for expected in lines {
            if let index = remaining.firstIndex(where: { Self.matches($0, expected) }) {
                remaining = remaining[(index + 1)...]
            } else {
                missing.append(expected)
            }
        }
        return missing
    }

    /// Whether `line` is `pattern`, each `…` in it standing for any text.
    static func matches(_ line: String, _ pattern: String) -> Bool {
        let pieces = pattern.components(separatedBy: "…")
        guard pieces.count > 1 else { return line == pattern }
        guard line.hasPrefix(pieces[0]), line.hasSuffix(pieces[pieces.count - 1]),
            line.count >= pieces[0].count + pieces[pieces.count - 1].count
        else { return false }
        var rest = line.dropFirst(pieces[0].count).dropLast(pieces[pieces.count - 1].count)
        for piece in pieces.dropFirst().dropLast() where !piece.isEmpty {
            guard let range = rest.range(of: piece) else { return false }
            rest = rest[range.upperBound...]
        }
        return true
    }

    /// The JSON object at the start of `text` (braces balanced outside strings), or `nil`.
    private static func leadingObject(_ text: Substring) -> String? {
        var depth = 0
        var inString = false
        var escaped = false
        for index in text.indices {
            let character = text[index]
            if inString {
                if escaped {
                    escaped = false
                } else if character == "\\" {
                    escaped = true
                } else if character == "\"" {
                    inString = false
                }
                continue
            }
            switch character {
            case "\"": inString = true
            case "{": depth += 1
            case "}":
                depth -= 1
                if depth == 0 { return String(text[...index]) }
            default: break
            }
        }
        return nil
    }
}
