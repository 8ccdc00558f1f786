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

    /// The message a user sees: `FILE: KEY: PROBLEM`, leaving out the file or the key when there is none.
    public var description: String {
        let place = file.map { "\($0): " } ?? ""
        return key.isEmpty ? "\(place)\(problem)" : "\(place)\(key): \(problem)"
    }

    func `in`(_ file: String) -> ConfigError {
        ConfigError(key: key, problem, file: file)
    }
}
