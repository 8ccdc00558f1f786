import MobiusSystem

/// A failure that ends the benchmark: what was being done, and the errno when a system call failed.
struct BenchError: Error, CustomStringConvertible {
    let message: String

    init(_ message: String) {
        self.message = message
    }

    /// A failed system call, with its errno's text.
    init(_ error: SystemError) {
        message = error.description
    }

    /// Runs a MobiusSystem call, reporting its failure as a `BenchError`.
    static func checking<Result>(_ call: () throws(SystemError) -> Result) throws(BenchError) -> Result {
        do {
            return try call()
        } catch {
            throw BenchError(error)
        }
    }

    var description: String { message }
}
