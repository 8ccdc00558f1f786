import MobiusJSON

/// A command line mobiusctl cannot run; printed with the command's usage line, exit status 2.
struct UsageError: Error, Equatable, CustomStringConvertible {
    /// What is wrong, e.g. `unknown option --bogus`.
    let message: String
    /// The command whose usage line to show, or `nil` for the tool's.
    let command: String?

    init(_ message: String, command: String?) {
        self.message = message
        self.command = command
    }

    var description: String { message }
}
