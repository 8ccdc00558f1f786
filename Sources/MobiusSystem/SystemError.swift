/// An operating-system call failed: which call, on what, and the errno it returned.
package struct SystemError: Error, CustomStringConvertible, Sendable, Equatable {
    /// The errno value.
    package let errno: Errno
    /// The call or operation that failed, e.g. `bind`.
    package let operation: String
    /// What it was applied to (a path, a socket), when that helps the reader.
    package let subject: String?

    package init(errno: Errno, operation: String, subject: String? = nil) {
        self.errno = errno
        self.operation = operation
        self.subject = subject
    }

    /// The C library's text for the errno, e.g. "Address already in use".
    package var reason: String { errno.description }

    package var description: String {
        let target = subject.map { " \($0)" } ?? ""
        return "\(operation)\(target): \(reason) (errno \(errno.rawValue))"
    }
}

extension Result where Failure == Errno {
    /// The value, or a `SystemError` naming `operation` and `subject` (worked out only on failure: a call that
    /// succeeds formats nothing).
    func get(_ operation: String, _ subject: @autoclosure () -> String? = nil) throws(SystemError) -> Success {
        switch self {
        case .success(let value): return value
        case .failure(let errno): throw SystemError(errno: errno, operation: operation, subject: subject())
        }
    }
}
