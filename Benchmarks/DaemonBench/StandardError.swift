import MobiusSystem

/// Progress and failure messages on file descriptor 2 (stdout carries the results).
enum StandardError {
    static func write(_ text: String) {
        try? FileDescriptor.standardError.writeAll(Array(text.utf8))
    }
}
