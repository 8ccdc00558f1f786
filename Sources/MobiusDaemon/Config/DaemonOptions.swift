/// The command line of `mobiusd` and of every program built on the kit (docs/protocol.md section 6).
public struct DaemonOptions: Sendable, Equatable {
    /// The config file, from `--config FILE` (or `-c`); `nil` means no file, so the built-in defaults apply.
    public var configFile: String?
    /// The socket to listen on, from `--socket PATH`; overrides `socket.path` when given.
    public var socketPath: String?
    /// The state directory, from `--state-dir DIR`; `nil` when not given.
    public var stateDirectory: String?
    /// Whether `--ephemeral` was given (keep nothing on disk); default `false`.
    public var ephemeral = false
    /// The log level, from `--log-level` (`error`, `warning`, `notice`, `info` or `debug`); `nil` means `info`.
    public var logLevel: String?
    /// Whether `--check` was given: validate the configuration and exit instead of serving; default `false`.
    public var check = false
    /// Whether `--version` was given: print the version and exit; default `false`.
    public var showVersion = false
    /// Whether `--help` (or `-h`) was given: print `usage` and exit; default `false`.
    public var showHelp = false

    /// Options as if no flags were given.
    public init() {}

    /// Parses arguments (without the program name). `--flag value` and `--flag=value` are both accepted.
    public init(arguments: [String]) throws(ConfigError) {
        var flags = FlagScanner(arguments)
        while let flag = flags.next() {
            switch flag {
            case "--config", "-c": configFile = try flags.value()
            case "--socket": socketPath = try flags.value()
            case "--state-dir": stateDirectory = try flags.value()
            case "--log-level": logLevel = try flags.value()
            case "--ephemeral": ephemeral = true
            case "--check": check = true
            case "--version": showVersion = true
            case "--help", "-h": showHelp = true
            default: throw ConfigError(key: flags.argument, "unknown option")
            }
            if ["--ephemeral", "--check", "--version", "--help"].contains(flag) { try flags.noValue() }
        }
        if let logLevel, DaemonLog.Level(name: logLevel) == nil {
            throw ConfigError(key: "--log-level", "must be one of error, warning, notice, info, debug")
        }
    }
}
