import Foundation
import Testing

/// One fenced code block of a Markdown file: where it is, its info string, and its text.
///
/// The info string is the language, then the doccheck marks (docs/README "Checked examples" and DocCatalog): words
/// such as `fragment`, `counter`, `dir=PATH`, `app=NAME`, `file=PATH`, and `skip:` followed by the reason.
struct DocFence: Sendable, CustomTestStringConvertible {
    /// The Markdown file, relative to the package root.
    let file: String
    /// The 1-based line of the opening fence.
    let line: Int
    /// The first word of the info string (`json`, `sh`…), lowercased; empty for a bare fence.
    let language: String
    /// The info string after the language.
    let marks: String
    /// The block's lines, with the fence's indentation removed, joined with `\n` (with a final `\n`).
    let body: String

    var testDescription: String { "\(file):\(line)" }

    /// The reason after `skip:`, or `nil` when the block is not marked skipped.
    var skipReason: String? {
        guard let range = marks.range(of: "skip:") else { return nil }
        return String(marks[range.upperBound...]).trimmingCharacters(in: .whitespaces)
    }

    /// Whether the marks hold the bare word `word`.
    func has(_ word: String) -> Bool {
        marks.split(separator: " ").contains { $0 == word }
    }

    /// The value of `name=VALUE` in the marks, or `nil`.
    func value(_ name: String) -> String? {
        for word in marks.split(separator: " ") where word.hasPrefix("\(name)=") {
            return String(word.dropFirst(name.count + 1))
        }
        return nil
    }

    /// Every fenced block of `text` (backtick fences of three or more, indented or not, as CommonMark reads them;
    /// an unclosed fence runs to the end of the file).
    static func parse(_ text: String, file: String) -> [DocFence] {
        var fences: [DocFence] = []
        var open: (line: Int, indent: Int, ticks: Int, info: String)?
        var body: [String] = []
        for (index, raw) in text.split(separator: "\n", omittingEmptySubsequences: false).enumerated() {
            let line = String(raw)
            let indent = line.prefix { $0 == " " }.count
            let rest = line.dropFirst(indent)
            let ticks = rest.prefix { $0 == "`" }.count
            if let current = open {
                if ticks >= current.ticks && rest.dropFirst(ticks).allSatisfy({ $0 == " " }) {
                    fences.append(fence(file: file, opening: current, body: body))
                    open = nil
                } else {
                    body.append(String(line.dropFirst(min(current.indent, indent))))
                }
            } else if ticks >= 3 && indent < 4 {
                let info = rest.dropFirst(ticks).trimmingCharacters(in: .whitespaces)
                open = (index + 1, indent, ticks, info)
                body = []
            }
        }
        if let current = open { fences.append(fence(file: file, opening: current, body: body)) }
        return fences
    }

    private static func fence(
        file: String, opening: (line: Int, indent: Int, ticks: Int, info: String), body: [String]
    ) -> DocFence {
        let words = opening.info.split(separator: " ", maxSplits: 1)
        return DocFence(
            file: file, line: opening.line, language: words.first.map { $0.lowercased() } ?? "",
            marks: words.count > 1 ? String(words[1]) : "", body: body.map { $0 + "\n" }.joined())
    }
}
