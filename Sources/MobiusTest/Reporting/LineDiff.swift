/// A line-by-line diff of two texts, rendered with `-` for expected-only lines and `+` for actual-only lines.
///
/// Uses a longest-common-subsequence table, quadratic in the number of lines: fine for the dumps of models and
/// effect lists that predicates compare, not meant for large documents.
struct LineDiff {
    private enum Line {
        case same(String)
        case expectedOnly(String)
        case actualOnly(String)
    }

    private let lines: [Line]

    /// Diffs `expected` against `actual`, split on newlines.
    init(expected: String, actual: String) {
        lines = Self.diff(Self.split(expected), Self.split(actual))
    }

    /// Diffs the `dump` output of two values.
    init<Value>(expected: Value, actual: Value) {
        self.init(expected: Self.render(expected), actual: Self.render(actual))
    }

    /// The diff, one line per text line, each prefixed with `- `, `+ ` or two spaces.
    var rendered: String {
        lines.map { line in
            switch line {
            case .same(let text): "  \(text)"
            case .expectedOnly(let text): "- \(text)"
            case .actualOnly(let text): "+ \(text)"
            }
        }.joined(separator: "\n")
    }

    /// The multi-line `dump` form of a value without its trailing newline; values that dump to one line (numbers,
    /// strings, payload-less cases) use `String(reflecting:)` instead, which reads better alone.
    static func render<Value>(_ value: Value) -> String {
        var text = ""
        dump(value, to: &text)
        while text.hasSuffix("\n") { text.removeLast() }
        return text.contains("\n") ? text : String(reflecting: value)
    }

    private static func split(_ text: String) -> [String] {
        text.split(separator: "\n", omittingEmptySubsequences: false).map(String.init)
    }

    private static func diff(_ old: [String], _ new: [String]) -> [Line] {
        // common[i][j]: length of the longest common subsequence of old[i...] and new[j...].
        var common = Array(repeating: Array(repeating: 0, count: new.count + 1), count: old.count + 1)
        for i in stride(from: old.count - 1, through: 0, by: -1) {
            for j in stride(from: new.count - 1, through: 0, by: -1) {
                common[i][j] = old[i] == new[j] ? common[i + 1][j + 1] + 1 : max(common[i + 1][j], common[i][j + 1])
            }
        }
        var result: [Line] = []
        var i = 0
        var j = 0
        while i < old.count || j < new.count {
            if i < old.count, j < new.count, old[i] == new[j] {
                result.append(.same(old[i]))
                i += 1
                j += 1
            } else if j == new.count || (i < old.count && common[i + 1][j] >= common[i][j + 1]) {
                result.append(.expectedOnly(old[i]))
                i += 1
            } else {
                result.append(.actualOnly(new[j]))
                j += 1
            }
        }
        return result
    }
}
