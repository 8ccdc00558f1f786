import MobiusJSON
import MobiusSystem

/// mobiusctl's command line, parsed by hand (there is no argument-parser package to fetch).
///
/// Global options (`--socket PATH`, `--app NAME`, `--json`, `--human`, `--help`, `--version`) may stand before or after
/// the command; `--name=value` and `--name value` are both accepted; `--` ends the options.
struct Invocation: Equatable, Sendable {
    /// What the user asked for.
    enum Action: Equatable, Sendable {
        /// Talk to the daemon.
        case run(Command)
        /// Print the tool's help (`nil`) or a command's.
        case help(String?)
        /// Print the version.
        case version
    }

    /// How replies are printed.
    enum OutputMode: Equatable, Sendable {
        /// Human-readable on a terminal, JSON lines otherwise.
        case automatic
        /// The daemon's JSON lines as they arrive (`--json`).
        case json
        /// Human-readable text even when stdout is not a terminal (`--human`).
        case human
    }

    var action: Action
    /// The socket to connect to: `--socket`, else `--app`'s, else `MOBIUSD_SOCKET`, else the default app's; and
    /// which of those it is.
    var socket: SocketChoice
    /// The path of ``socket``.
    var socketPath: String { socket.path }
    var output: OutputMode

    /// Parses `arguments` (without the program name).
    ///
    /// - Parameters:
    ///   - environment: consulted for `MOBIUSD_SOCKET` and `XDG_RUNTIME_DIR`.
    ///   - userID: names the fallback directory `/tmp/mobiusd-<uid>`.
    ///   - isSocket: whether a path is a socket, to find where an app's daemon listens.
    /// - Throws: ``UsageError`` for an unknown command or option, a missing or malformed value, invalid JSON
    ///   for `send`, or an option the command does not take. `--help` anywhere wins over such errors.
    static func parse(
        _ arguments: [String], environment: [String: String], userID: UInt32, isSocket: (String) -> Bool
    ) throws(UsageError)
        -> Invocation
    {
        var scan = Scan(arguments: arguments)
        scan.run()
        let socket = SocketChoice.choose(
            flag: scan.socket, app: scan.app, environment: environment, userID: userID, isSocket: isSocket)
        if scan.wantsHelp {
            return Invocation(action: .help(scan.commandName), socket: socket, output: scan.output)
        }
        if let problem = scan.problem { throw problem }
        if scan.wantsVersion {
            return Invocation(action: .version, socket: socket, output: scan.output)
        }
        guard let name = scan.commandName else {
            throw UsageError("no command given", command: nil)
        }
        if name == "help" {
            guard scan.positionals.count <= 1 else {
                throw UsageError("help takes at most one command", command: "help")
            }
            let topic = scan.positionals.first
            if let topic, !Command.names.contains(topic) {
                throw UsageError("unknown command \"\(topic)\"", command: nil)
            }
            return Invocation(action: .help(topic), socket: socket, output: scan.output)
        }
        let command = try Command(name: name, positionals: scan.positionals, options: scan.commandOptions)
        return Invocation(action: .run(command), socket: socket, output: scan.output)
    }

    /// One pass over the arguments that records the first problem instead of stopping, so `--help` still works.
    private struct Scan {
        var remaining: ArraySlice<String>
        var socket: String?
        var app: String?
        var output = OutputMode.automatic
        var wantsHelp = false
        var wantsVersion = false
        var commandName: String?
        var positionals: [String] = []
        var commandOptions: [(name: String, value: String?)] = []
        var problem: UsageError?

        init(arguments: [String]) {
            remaining = arguments[...]
        }

        mutating func run() {
            var optionsEnded = false
            while let argument = remaining.popFirst() {
                if optionsEnded || !Self.looksLikeOption(argument) {
                    if commandName == nil { commandName = argument } else { positionals.append(argument) }
                    continue
                }
                if argument == "--" {
                    optionsEnded = true
                    continue
                }
                var name = argument
                var inline: String?
                if argument.hasPrefix("--"), let equals = argument.firstIndex(of: "=") {
                    name = String(argument[..<equals])
                    inline = String(argument[argument.index(after: equals)...])
                }
                handle(option: name, inline: inline)
            }
            if socket != nil, app != nil {
                record(UsageError("give --app or --socket, not both", command: commandName))
            }
        }

        private mutating func handle(option name: String, inline: String?) {
            switch name {
            case "--help", "-h": flag(name, inline) { $0.wantsHelp = true }
            case "--version": flag(name, inline) { $0.wantsVersion = true }
            case "--json": flag(name, inline) { $0.output = .json }
            case "--human": flag(name, inline) { $0.output = .human }
            case "--socket":
                if let value = value(for: name, inline: inline) {
                    if value.isEmpty { record(UsageError("--socket needs a path", command: commandName)) }
                    socket = value
                }
            case "--app":
                if let value = value(for: name, inline: inline) {
                    if value.isEmpty {
                        record(UsageError("--app needs an app name", command: commandName))
                    } else if !AppSocketPaths.isValidAppName(value) {
                        record(
                            UsageError(
                                "--app \"\(value)\" is not an app name (1 to 64 letters, digits, -, _ and .)",
                                command: commandName))
                    }
                    app = value
                }
            case "--follow", "--models":
                if inline != nil { record(UsageError("\(name) takes no value", command: commandName)) }
                commandOptions.append((name, nil))
            case "--path", "--since", "--limit", "--timeout", "--format", "--output", "--at":
                if let value = value(for: name, inline: inline) { commandOptions.append((name, value)) }
            default:
                record(UsageError("unknown option \(name)", command: commandName))
            }
        }

        private mutating func flag(_ name: String, _ inline: String?, set: (inout Scan) -> Void) {
            if inline != nil { record(UsageError("\(name) takes no value", command: commandName)) }
            set(&self)
        }

        /// The option's value: after `=`, else the next argument unless that is another `--option`.
        private mutating func value(for name: String, inline: String?) -> String? {
            if let inline { return inline }
            guard let next = remaining.first, !next.hasPrefix("--") else {
                record(UsageError("\(name) needs a value", command: commandName))
                return nil
            }
            remaining.removeFirst()
            return next
        }

        private mutating func record(_ error: UsageError) {
            if problem == nil { problem = error }
        }

        /// `-x`, `--x`; not `-` alone nor a negative number (a JSON event such as `-1`).
        private static func looksLikeOption(_ argument: String) -> Bool {
            let bytes = Array(argument.utf8)
            guard bytes.count >= 2, bytes[0] == UInt8(ascii: "-") else { return false }
            return !(bytes[1] >= UInt8(ascii: "0") && bytes[1] <= UInt8(ascii: "9"))
        }
    }
}

extension Command {
    /// Builds a command from its name, its positional arguments and its options (`--path`, `--since`…).
    fileprivate init(
        name: String, positionals: [String], options: [(name: String, value: String?)]
    )
        throws(UsageError)
    {
        let allowed: [String]
        switch name {
        case "model": allowed = ["--path", "--at"]
        case "watch": allowed = ["--path"]
        case "log": allowed = ["--since", "--follow", "--limit", "--models"]
        case "reload": allowed = ["--timeout"]
        case "metrics": allowed = ["--format", "--output"]
        case "send", "status", "monitor", "hello", "ping", "plugin", "top": allowed = []
        default: throw UsageError("unknown command \"\(name)\"", command: nil)
        }
        if let option = options.first(where: { !allowed.contains($0.name) }) {
            throw UsageError("\(name) does not take \(option.name)", command: name)
        }
        var values: [String: String] = [:]
        for option in options {
            guard values[option.name] == nil else {
                throw UsageError("\(option.name) given twice", command: name)
            }
            values[option.name] = option.value ?? ""
        }
        if name == "send" {
            guard positionals.count == 1 else {
                throw UsageError(
                    positionals.isEmpty ? "send needs a JSON event" : "send takes one JSON event (quote it)",
                    command: name)
            }
            do {
                self = .send(try JSONValue(parsing: positionals[0]))
            } catch {
                throw UsageError("send: invalid JSON: \(error)", command: name)
            }
            return
        }
        if name == "plugin" {
            self = try Self.plugin(positionals)
            return
        }
        if let extra = positionals.first {
            throw UsageError("\(name) takes no argument \"\(extra)\"", command: name)
        }
        switch name {
        case "model", "watch":
            let path = values["--path"]
            if let path {
                do {
                    _ = try JSONPointer(path)
                } catch {
                    throw UsageError("--path \"\(path)\" is not a JSON Pointer: \(error.message)", command: name)
                }
            }
            self =
                name == "model"
                ? .model(path: path, at: try Self.count(values["--at"], option: "--at", command: name))
                : .watch(path: path)
        case "log":
            self = .log(
                since: try Self.count(values["--since"], option: "--since"),
                follow: values["--follow"] != nil,
                limit: try Self.count(values["--limit"], option: "--limit"),
                models: values["--models"] != nil)
        case "status": self = .status
        case "monitor": self = .monitor
        case "top": self = .top
        case "metrics":
            let format = values["--format"]
            if let format, !Self.metricsFormats.contains(format) {
                throw UsageError("--format takes openmetrics or prometheus, not \"\(format)\"", command: name)
            }
            let output = values["--output"]
            if output?.isEmpty == true { throw UsageError("--output needs a file name", command: name) }
            self = .metrics(format: format, output: output)
        case "hello": self = .hello
        case "reload":
            let timeout = values["--timeout"].map { Int($0) } ?? Self.defaultReloadTimeout
            guard let timeout, (1...86_400).contains(timeout) else {
                throw UsageError(
                    "--timeout needs whole seconds from 1 to 86400, not \"\(values["--timeout"] ?? "")\"",
                    command: name)
            }
            self = .reload(timeout: timeout)
        default: self = .ping
        }
    }

    /// The formats `metrics --format` takes.
    static let metricsFormats = ["openmetrics", "prometheus"]

    /// How long `reload` waits for its answer unless `--timeout` says: systemd's default for `ExecReload=`.
    static let defaultReloadTimeout = 90

    /// `plugin restart NAME`, the only plugin action.
    private static func plugin(_ positionals: [String]) throws(UsageError) -> Command {
        guard let action = positionals.first else {
            throw UsageError("plugin needs an action: plugin restart NAME", command: "plugin")
        }
        guard action == "restart" else {
            throw UsageError("unknown plugin action \"\(action)\" (plugin restart NAME)", command: "plugin")
        }
        switch positionals.count {
        case 1: throw UsageError("plugin restart needs a plugin name", command: "plugin")
        case 2: return .restartPlugin(positionals[1])
        default: throw UsageError("plugin restart takes one plugin name", command: "plugin")
        }
    }

    private static func count(_ text: String?, option: String, command: String = "log") throws(UsageError) -> UInt64? {
        guard let text else { return nil }
        guard let value = UInt64(text), value <= UInt64(Int64.max) else {
            throw UsageError("\(option) needs a whole number ≥ 0, not \"\(text)\"", command: command)
        }
        return value
    }
}
