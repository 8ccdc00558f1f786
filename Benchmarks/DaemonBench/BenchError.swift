import Glibc

/// A failure that ends the benchmark: what was being done, and the errno when a system call failed.
struct BenchError: Error, CustomStringConvertible {
    let message: String

    init(_ message: String) {
        self.message = message
    }

    /// The failure of the system call `operation` just now, with errno's text.
    static func system(_ operation: String, _ subject: String = "") -> BenchError {
        let code = errno
        let text = String(cString: strerror(code))
        return BenchError("\(operation)\(subject.isEmpty ? "" : " \(subject)"): \(text) (errno \(code))")
    }

    var description: String { message }
}
