import MobiusTest

/// Collects failures instead of failing the test, so tests can assert what MobiusTest reports.
final class FailureRecorder {
    struct Failure {
        let message: String
        let file: String
        let line: UInt
    }

    private(set) var failures: [Failure] = []

    var messages: [String] { failures.map(\.message) }

    /// An `AssertionFailure` that records into this recorder.
    var fail: AssertionFailure {
        { [self] message, file, line in failures.append(Failure(message: message, file: "\(file)", line: line)) }
    }
}

extension PredicateResult {
    /// The failure message, or `nil` on success.
    var failureMessage: String? {
        if case .failure(let message, _, _) = self { return message }
        return nil
    }
}
