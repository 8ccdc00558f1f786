/// The command line of `replay` (docs/apps.md, "Checking a changed update against the journal").
struct ReplayOptions: Equatable {
    /// The candidate's config, from `--config FILE`; `nil`: the program's own app without a config.
    var candidateConfig: String?
    /// The config the daemon runs with, from `--current FILE`; `nil`: found from the state directory's name.
    var currentConfig: String?
    /// From `--state-dir DIR`: the directory whose journal is replayed (required unless `--help`).
    var stateDirectory = ""
    /// From `--since N`: compare the events after seq N; `nil`: as far back as the directory goes.
    var since: UInt64?
    /// From `--until M`: the last seq compared; `nil`: the last journaled event.
    var until: UInt64?
    /// `--all`: list every divergence, not only the first.
    var everyDivergence = false
    /// From `--log-level`: what of the plugins' and replay's own log reaches stderr; default `warning`.
    var logLevel = DaemonLog.Level.warning
    /// `--help`.
    var showHelp = false

    /// Parses the arguments after `replay`.
    ///
    /// - Throws: `ConfigError` naming the flag: unknown, missing its value, a seq that is not a whole number, or
    ///   `--state-dir` missing.
    init(arguments: [String]) throws(ConfigError) {
        var flags = FlagScanner(arguments)
        while let flag = flags.next() {
            switch flag {
            case "--config", "-c": candidateConfig = try flags.value()
            case "--current": currentConfig = try flags.value()
            case "--state-dir": stateDirectory = try flags.value()
            case "--since": since = try Self.seq(flags.value(), flag: flag)
            case "--until": until = try Self.seq(flags.value(), flag: flag)
            case "--log-level":
                let name = try flags.value()
                guard let level = DaemonLog.Level(name: name) else {
                    throw ConfigError(key: flag, "must be one of error, warning, notice, info, debug")
                }
                logLevel = level
            case "--all":
                try flags.noValue()
                everyDivergence = true
            case "--help", "-h":
                try flags.noValue()
                showHelp = true
            default: throw ConfigError(key: flags.argument, "unknown option")
            }
        }
        guard showHelp || !stateDirectory.isEmpty else {
            throw ConfigError(key: "--state-dir", "is required: the state directory whose journal is replayed")
        }
        if let since, let until, until < since {
            throw ConfigError(key: "--until", "is \(until), before --since \(since)")
        }
    }

    private static func seq(_ text: String, flag: String) throws(ConfigError) -> UInt64 {
        guard !text.isEmpty, text.utf8.count <= 20, text.utf8.allSatisfy({ (48...57).contains($0) }),
            let value = UInt64(text)
        else {
            throw ConfigError(key: flag, "must be a seq: a whole number from 0 to \(UInt64.max), not \"\(text)\"")
        }
        return value
    }
}
