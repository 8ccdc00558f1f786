/// Why `replay` cannot compare (exit status 2): a bad config, a state directory it cannot read, damage in the
/// journal (naming the file and the byte offset), an update plugin that does not run.
struct ReplayFailure: Error, CustomStringConvertible {
    let description: String

    init(_ description: String) {
        self.description = description
    }
}
