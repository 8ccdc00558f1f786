/// "Did you mean" for a misspelt name: the one known name within a small edit distance of what was written.
enum ConfigSuggestion {
    /// ` (did you mean "X"?)` when exactly one of `known` is closest to `word` and close enough, else empty.
    ///
    /// Close enough: case-insensitively equal, or at most 1 edit for names up to 4 characters and 2 edits for
    /// longer ones (an edit is an insertion, deletion, substitution or a swap of two neighbours).
    static func hint(for word: String, among known: some Sequence<String>) -> String {
        guard let match = closest(to: word, among: known) else { return "" }
        return " (did you mean \"\(match)\"?)"
    }

    /// The single closest known name within the limit, `nil` when none is close or two tie.
    static func closest(to word: String, among known: some Sequence<String>) -> String? {
        let target = Array(word.lowercased().unicodeScalars)
        // A name of a kilobyte is a typo of nothing; the bound keeps the quadratic distance cheap.
        guard target.count <= 64 else { return nil }
        let limit = target.count <= 4 ? 1 : 2
        var best: (name: String, distance: Int)?
        var tied = false
        for name in Set(known) where name != word {
            let candidate = Array(name.lowercased().unicodeScalars)
            guard abs(candidate.count - target.count) <= limit else { continue }
            let distance = editDistance(target, candidate)
            guard distance <= limit else { continue }
            if let current = best, current.distance < distance { continue }
            tied = best?.distance == distance
            best = (name, distance)
        }
        return tied ? nil : best?.name
    }

    /// Optimal string alignment distance: Levenshtein plus the swap of two neighbouring characters.
    static func editDistance(_ a: [Unicode.Scalar], _ b: [Unicode.Scalar]) -> Int {
        if a.isEmpty { return b.count }
        if b.isEmpty { return a.count }
        var previous2 = [Int](repeating: 0, count: b.count + 1)
        var previous = Array(0...b.count)
        var current = [Int](repeating: 0, count: b.count + 1)
        for i in 1...a.count {
            current[0] = i
            for j in 1...b.count {
                let cost = a[i - 1] == b[j - 1] ? 0 : 1
                var value = min(previous[j] + 1, current[j - 1] + 1, previous[j - 1] + cost)
                if i > 1, j > 1, a[i - 1] == b[j - 2], a[i - 2] == b[j - 1] {
                    value = min(value, previous2[j - 2] + 1)
                }
                current[j] = value
            }
            (previous2, previous, current) = (previous, current, previous2)
        }
        return previous[b.count]
    }
}
