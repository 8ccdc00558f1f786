extension SystemProcess {
    /// Every environment variable of the process, by name. The corresponding C variable is `environ`.
    package static func environmentVariables() -> [String: String] {
        var result: [String: String] = [:]
        for text in Syscall.environmentEntries() {
            // An entry without `=` is malformed and has no value to look up; it is skipped.
            if let equals = text.firstIndex(of: "=") {
                result[String(text[..<equals])] = String(text[text.index(after: equals)...])
            }
        }
        return result
    }
}
