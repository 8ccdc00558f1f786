/// Walks a command line of `--flag value`, `--flag=value` and bare flags: the daemon's (`DaemonOptions`) and
/// `replay`'s (`ReplayOptions`).
struct FlagScanner {
    private var remaining: ArraySlice<String>
    /// The argument being read, as given (`--since=5`): what an unknown option's error names.
    private(set) var argument = ""
    /// The flag being read: the argument, or its part before `=`.
    private(set) var flag = ""
    private var inlineValue: String?

    init(_ arguments: [String]) {
        remaining = arguments[...]
    }

    /// The next flag, or `nil` when the command line ends.
    mutating func next() -> String? {
        guard let next = remaining.popFirst() else { return nil }
        argument = next
        flag = next
        inlineValue = nil
        if next.hasPrefix("--"), let equals = next.firstIndex(of: "=") {
            flag = String(next[..<equals])
            inlineValue = String(next[next.index(after: equals)...])
        }
        return flag
    }

    /// The flag's value: what follows `=`, else the next argument, which must not be a flag.
    mutating func value() throws(ConfigError) -> String {
        if let inlineValue { return inlineValue }
        guard let next = remaining.popFirst(), !next.hasPrefix("--") else {
            throw ConfigError(key: flag, "needs a value")
        }
        return next
    }

    /// Refuses `=value` on a flag that takes none.
    func noValue() throws(ConfigError) {
        if inlineValue != nil { throw ConfigError(key: flag, "takes no value") }
    }
}
