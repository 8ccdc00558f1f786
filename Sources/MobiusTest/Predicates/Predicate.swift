/// A check on a value: `.success`, or `.failure` with a message and the location of the assertion that made it.
public typealias Predicate<T> = (T) -> PredicateResult

/// The outcome of a `Predicate`.
public enum PredicateResult {
    /// The value satisfied the predicate.
    case success
    /// The value did not satisfy the predicate; `message` says why, `file` and `line` point at the predicate's call.
    case failure(message: String, file: StaticString, line: UInt)
}

extension PredicateResult {
    /// The failure for a predicate named `predicate`: a summary, then an optional diff of expected against actual.
    static func failure<Value>(
        _ predicate: String,
        _ summary: String,
        expected: Value,
        actual: Value,
        file: StaticString,
        line: UInt
    ) -> PredicateResult {
        let diff = LineDiff(expected: expected, actual: actual).rendered
        return .failure(
            message: "\(predicate) failed: \(summary)\n(- expected, + actual)\n\(diff)", file: file, line: line)
    }
}
