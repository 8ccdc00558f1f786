import MobiusCore
import MobiusJSON
import MobiusSystem

/// Entry points: run an app as the daemon, with the command line and config of docs/protocol.md section 6.
public enum MobiusDaemon {
    /// The daemon's version, reported by `--version`, `hello` and `status`.
    public static let version = "0.1.0"

    /// Runs a typed Swift (or JSON) app as the daemon and exits with its status.
    ///
    /// The program is the app's own: `--help`, `--version`, error messages and the start-up banner use its
    /// `programName` (else the name it was started as), `summary`, `version` and `exampleEvent`. The app brings its
    /// own update: a config file given with `--config` may not have an `update` key.
    public static func main<Model, Event, Effect>(
        app: DaemonApp<Model, Event, Effect>, arguments: [String] = Array(CommandLine.arguments.dropFirst())
    ) -> Never {
        SystemProcess.exit(run(app: app, arguments: arguments))
    }

    /// Runs a JSON app (`DaemonApp.json`) as the daemon and exits with its status, as `main(app:arguments:)` does.
    ///
    /// Calls from another module with concrete types reach only the generic code; this overload names the types
    /// inside this module, so the daemon runs the code compiled for JSON apps (PluginDaemonBench's effects rows).
    public static func main(
        app: DaemonApp<JSONValue, JSONValue, JSONValue>, arguments: [String] = Array(CommandLine.arguments.dropFirst())
    ) -> Never {
        SystemProcess.exit(run(app: app, arguments: arguments))
    }

    /// An app that brings its own update: a config file's `update` key is refused.
    private static func run<Model, Event, Effect>(app: DaemonApp<Model, Event, Effect>, arguments: [String]) -> Int32 {
        let identity = ProgramIdentity(app: app, argv0: CommandLine.arguments.first)
        return run(arguments: arguments, identity: identity) { config throws(ConfigError) in
            if config.update != nil {
                throw ConfigError(key: "update", "this app brings its own update function; remove the key")
            }
            return app
        }
    }

    /// The `mobiusd` executable: runs the built-in app the config names (the counter without a config).
    public static func mainWithBuiltinApps(arguments: [String] = Array(CommandLine.arguments.dropFirst())) -> Never {
        SystemProcess.exit(run(arguments: arguments, identity: .mobiusd, app: builtinApp(for:)))
    }

    /// The app a config names for `mobiusd`: its built-in or plugin update, or the counter without a config file.
    static func builtinApp(for config: DaemonConfig) throws(ConfigError) -> DaemonApp<JSONValue, JSONValue, JSONValue> {
        switch config.update {
        case nil where config.file == nil, .builtin(BuiltinApps.defaultName)?:
            return BuiltinApps.all[BuiltinApps.defaultName]!()
        case .builtin(let name)?:
            guard let make = BuiltinApps.all[name] else {
                let known = BuiltinApps.all.keys.sorted().joined(separator: ", ")
                let hint = ConfigSuggestion.hint(for: name, among: BuiltinApps.all.keys)
                throw ConfigError(key: "update.builtin", "no built-in app \"\(name)\"\(hint) (built in: \(known))")
            }
            return make()
        case .plugin(let name)?:
            guard config.plugins.contains(where: { $0.name == name }) else {
                let hint = ConfigSuggestion.hint(for: name, among: config.plugins.map(\.name))
                throw ConfigError(key: "update.plugin", "no plugin \"\(name)\" in \"plugins\"\(hint)")
            }
            return PluginApp.make(plugin: name, name: config.app, model: config.model)
        case nil:
            throw ConfigError(
                key: "update", "is required: " + UpdateChoices.listed(plugins: config.plugins.map(\.name)))
        }
    }

    /// Parses the command line and config, picks the app, and serves. Returns the exit status.
    ///
    /// - Parameter identity: the program's name and help, for what it prints.
    static func run<Model, Event, Effect>(
        arguments: [String], identity: ProgramIdentity,
        app chooseApp: (DaemonConfig) throws(ConfigError) -> DaemonApp<Model, Event, Effect>
    ) -> Int32 {
        let program = identity.name
        if arguments.first == "replay" {
            // A config that names an update (a plugin, a built-in) runs it; one that names none runs the program's
            // own app, as the daemon would.
            return ReplayCommand.run(Array(arguments.dropFirst()), identity: identity) {
                config, log throws(ReplayFailure) in
                guard config.update == nil else {
                    return try ReplayCommand.side(config, identity: identity, log: log) { () throws(ConfigError) in
                        try builtinApp(for: config)
                    }
                }
                return try ReplayCommand.side(config, identity: identity, log: log) { () throws(ConfigError) in
                    try chooseApp(config)
                }
            }
        }
        let options: DaemonOptions
        do {
            options = try DaemonOptions(arguments: arguments)
        } catch {
            printError("\(program): \(error); see \(program) --help")
            return 2
        }
        if options.showHelp {
            printOut(identity.usage + "\n")
            return 0
        }
        if options.showVersion {
            printOut(identity.versionLine + "\n")
            return 0
        }
        let log = DaemonLog(
            threshold: options.logLevel.flatMap(DaemonLog.Level.init(name:)) ?? .info, identifier: program)
        let setup: DaemonSetup<Model, Event, Effect>
        do {
            let config =
                try options.configFile.map { path throws(ConfigError) in try DaemonConfig(file: path) }
                ?? DaemonConfig()
            setup = try DaemonSetup(config: config, options: options, app: chooseApp(config))
            if options.check {
                try setup.check()
                printOut("\(program): configuration OK (app \"\(setup.app.name)\", socket \(setup.socketPath))\n")
                return 0
            }
        } catch {
            // Every problem in the config names the file, wherever it was found; a flag's problem names the flag,
            // and a socket path given with --socket is not the file's.
            let fromFlag = error.key.hasPrefix("-") || (error.key == "socket.path" && options.socketPath != nil)
            let named = error.file == nil && !fromFlag ? options.configFile.map(error.in) : nil
            printError("\(program): \(named ?? error)")
            return 1
        }
        // The log's writer thread must finish before the process exits, or the last lines (the reason for a
        // failed start among them) are lost.
        runningLog.withLock { $0 = log }
        defer {
            runningLog.withLock { $0 = nil }
            log.flush()
        }
        do {
            try setup.serve(log: log, identity: identity)
            return 0
        } catch {
            log.error("\(error)")
            return 1
        }
    }

    /// Writes a line to the daemon's log (stderr; the journal under systemd), for app code such as effect
    /// handlers.
    public static func log(_ message: String) {
        if let log = runningLog.withLock({ $0 }) {
            log.info(message)
        } else {
            printError(message)
        }
    }

    /// The running daemon's log, for `log(_:)`: app lines share its queue, writer thread and `--log-level`.
    private static let runningLog = Locked<DaemonLog?>(nil)

    static func printOut(_ text: String) {
        try? FileDescriptor.standardOutput.writeAll(Array(text.utf8))
    }

    static func printError(_ text: String) {
        try? FileDescriptor.standardError.writeAll(Array((text + "\n").utf8))
    }
}
