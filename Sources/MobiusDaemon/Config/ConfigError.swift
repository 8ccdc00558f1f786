/// A configuration or command-line problem, naming the key (or flag) and what is wrong with it.
public struct ConfigError: Error, CustomStringConvertible, Sendable {
    /// The key path, e.g. `socket.mode`, or the flag, e.g. `--log-level`.
    public let key: String
    /// What is wrong, e.g. `must be an octal string like "0660"`.
    public let problem: String
    /// The config file, when the problem is in one.
    public let file: String?

    init(key: String, _ problem: String, file: String? = nil) {
        self.key = key
        self.problem = problem
        self.file = file
    }

    /// The message a user sees: `FILE: KEY: PROBLEM`, leaving out the file or the key when there is none. Keys and
    /// values quoted from the file show control characters as `?`, so the file cannot write escape sequences to the
    /// terminal; the problem keeps its own line breaks and tabs.
    public var description: String {
        let place = file.map { "\($0): " } ?? ""
        let problem = Self.printable(problem, keeping: ["\n", "\t"])
        return key.isEmpty ? "\(place)\(problem)" : "\(place)\(Self.printable(key)): \(problem)"
    }

    /// `text` with every control character (C0, DEL, C1) but those in `kept` replaced by `?`.
    static func printable(_ text: String, keeping kept: Set<Unicode.Scalar> = []) -> String {
        func isControl(_ scalar: Unicode.Scalar) -> Bool {
            (scalar.value < 0x20 || (0x7F...0x9F).contains(scalar.value)) && !kept.contains(scalar)
        }
        guard text.unicodeScalars.contains(where: isControl) else { return text }
        return String(String.UnicodeScalarView(text.unicodeScalars.map { isControl($0) ? "?" : $0 }))
    }

    func `in`(_ file: String) -> ConfigError {
        ConfigError(key: key, problem, file: file)
    }
}
