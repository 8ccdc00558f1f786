internal import Glibc

/// An operating-system call failed: which call, on what, and the errno it returned.
package struct SystemError: Error, CustomStringConvertible, Sendable, Equatable {
    /// The errno value.
    package let errno: Int32
    /// The call or operation that failed, e.g. `bind`.
    package let operation: String
    /// What it was applied to (a path, a socket), when that helps the reader.
    package let subject: String?

    package init(errno: Int32, operation: String, subject: String? = nil) {
        self.errno = errno
        self.operation = operation
        self.subject = subject
    }

    /// The error for the current `errno`.
    package static func current(_ operation: String, _ subject: String? = nil) -> SystemError {
        SystemError(errno: Glibc.errno, operation: operation, subject: subject)
    }

    /// The C library's text for the errno, e.g. "Address already in use".
    package var reason: String {
        strerror(errno).map { String(decoding: UnsafeRawBufferPointer(start: $0, count: strlen($0)), as: UTF8.self) }
            ?? "errno \(errno)"
    }

    package var description: String {
        let target = subject.map { " \($0)" } ?? ""
        return "\(operation)\(target): \(reason) (errno \(errno))"
    }

    package static let wouldBlock = [EAGAIN, EWOULDBLOCK]
}

/// Runs a system call, retrying while it fails with EINTR. Returns the call's result (-1 on other errors).
@inline(__always)
package func retryingOnInterrupt<Result: BinaryInteger>(_ call: () -> Result) -> Result {
    while true {
        let result = call()
        if result == -1 && Glibc.errno == EINTR { continue }
        return result
    }
}
