/// A test-side failure with a message a reader can act on (what was expected, what came instead).
struct DaemonTestError: Error, CustomStringConvertible {
    let description: String

    init(_ description: String) {
        self.description = description
    }
}
