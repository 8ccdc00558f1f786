import MobiusJSON
import MobiusSystem

/// The daemon's configuration: docs/protocol.md section 6, read from a JSON file and overridden by flags.
public struct DaemonConfig: Sendable {
    /// Where the app's update comes from.
    public enum UpdateSource: Sendable, Equatable {
        case builtin(String)
        case plugin(String)
    }

    /// How often the journal is flushed to stable storage.
    public enum FsyncPolicy: String, Sendable {
        case always, batch, never
    }

    /// One plugin (section 2).
    public struct Plugin: Sendable {
        /// The program and its arguments, from `exec` (required); a program path with a `/` resolves against the
        /// config file's directory, a bare name is looked up on PATH.
        public var exec: [String]
        /// The object sent to the plugin in `initialize`, from `options`; default `{}`.
        public var options: JSONValue = .object([:])
        /// Extra environment variables for the plugin, from the `env` object, in file order; default none. Relative
        /// paths in a value (`./lib`, `..`, each element of a `:` list) resolve against the config file's directory.
        public var env: [(String, String)] = []
        /// Seconds an effect may go without progress before it is cancelled and fails, from `timeout`; default 30.
        public var timeout: Double = 30
        /// Most effects in flight at once, from `concurrency`; default 64.
        public var concurrency = 64
        /// Most events in one `updateBatch` request (update plugins, docs/protocol.md 2.5).
        public var maxBatch = 1024
        /// How many times an update plugin may die on one request before the request's event is rejected with
        /// `PluginCrashed` (a batch is first split into single events), from `crashesPerEvent`; default 2.
        public var crashesPerEvent = 2
        /// Seconds an update plugin may take to answer one `init`, `update` or `updateBatch` request before it is
        /// ended as if it had crashed on it, from `updateTimeout`; default 5.
        public var updateTimeout: Double = 5
        /// The user (name or uid) the plugin runs as when the daemon runs as root.
        public var user: String?
        /// The group (name or gid) the plugin runs as when the daemon runs as root.
        public var group: String?
        /// The event template reported to the loop when an effect fails, from `onError`; default `nil` (not reported).
        public var onError: JSONValue?
        /// The restart policy, from `restart`; defaults as in `Restart`.
        public var restart = Restart()
        /// Seconds the `initialize` handshake may take, from `startTimeout`; default 10.
        public var startTimeout: Double = 10
        /// Longest line the plugin may write on stdout, from `maxLineBytes`; default 16 MiB.
        public var maxLineBytes = 16 << 20
        /// Effects waiting in the host (while `concurrency` are in flight or the plugin restarts) at which the
        /// plugin pushes back on the daemon's edges, from `maxQueued`; default 4096 (`EdgeBackpressure`).
        public var maxQueued = 4096
    }

    /// A plugin's restart policy.
    public struct Restart: Sendable {
        /// Seconds before the first restart, from `restart.initialDelay`; default 0.1.
        public var initialDelay: Double = 0.1
        /// Longest delay in seconds between restarts, from `restart.maxDelay` (not below `initialDelay`); default 30.
        public var maxDelay: Double = 30
        /// Most starts within `interval` before the plugin is marked failed, from `restart.burst`; default 5.
        public var burst = 5
        /// The window in seconds in which `burst` starts are counted, from `restart.interval`; default 60.
        public var interval: Double = 60
    }

    /// The app's name, from `app`; `nil` keeps the app's own name (`counter` for the default app).
    public var app: String?
    /// The starting model in the app's JSON form, from `model`; `nil` keeps the app's own.
    public var model: JSONValue?
    /// The update named by the `update` key, a built-in or a plugin; `nil` when the key is absent.
    public var update: UpdateSource?
    /// The plugins by name, from the `plugins` object, in file order; default none.
    public var plugins: [(name: String, plugin: Plugin)] = []
    /// The D-Bus event sources, from the `dbus` array; default none.
    public var dbus: [DBusSource] = []
    /// The model as a D-Bus service, from `expose`; default none.
    public var expose: Expose?
    /// Where to listen, from `socket.path` (relative to the config file); `nil` means the default path.
    /// `--socket` overrides it.
    public var socketPath: String?
    /// Permission bits of the socket file, from `socket.mode` (an octal string); default `0o660`.
    public var socketMode: UInt32 = 0o660
    /// Group of the socket file (name or gid), from `socket.group`; `nil` leaves the group unchanged.
    public var socketGroup: String?
    /// Longest request line in bytes, from `socket.maxLineBytes`; default 1 MiB.
    public var maxLineBytes = 1 << 20
    /// Output buffered for one client before its requests stop being read, from `socket.maxOutputBytes`;
    /// default 8 MiB.
    public var maxOutputBytes = 8 << 20
    /// Most client connections in total, from `socket.maxConnections`; default 1024.
    public var maxConnections = 1024
    /// Most connections from one peer uid, from `socket.maxConnectionsPerUser`; default 256.
    public var maxConnectionsPerUser = 256
    /// Seconds a connection with unsent output may make no write progress before it is closed, from
    /// `socket.stallTimeout`; default 30.
    public var stallTimeout: Double = 30
    /// Who may read, from `access.read`; `nil` means anyone who can connect.
    public var accessRead: [String]?
    /// Who may send events, from `access.write`; `nil` means the daemon's own user and root.
    public var accessWrite: [String]?
    /// The state directory, from `state.directory` (relative to the config file); `nil` when not set.
    public var stateDirectory: String?
    /// When the journal is flushed to stable storage, from `state.fsync`; default `always`.
    public var fsync: FsyncPolicy = .always
    /// Events applied between model snapshots, from `state.snapshotEvents`; default 100,000.
    public var snapshotEvents = 100_000
    /// Journal bytes written since the last snapshot that make the next pass take one, from `state.snapshotBytes`;
    /// default 64 MiB.
    public var snapshotBytes = 64 << 20
    /// Size at which the journal moves on to a new segment file, from `state.segmentBytes`; default 16 MiB.
    public var segmentBytes = 16 << 20
    /// Bytes of recent journal records kept in memory for `log` readers at the head (and, with `--ephemeral`, all
    /// the history `log` serves), from `state.logWindowBytes`; default 8 MiB.
    public var logWindowBytes = 8 << 20
    /// Model snapshots kept on disk, the newest included, from `state.keepSnapshots`; default 2. Compaction keeps
    /// the journal records after the oldest of them, so `model {"at":N}` reaches back that far.
    public var keepSnapshots = 2
    /// The config file it came from, if any.
    public var file: String?

    /// The built-in defaults (no file).
    public init() {}

    /// Reads a config file. Relative paths in it resolve against the file's directory.
    public init(file: String) throws(ConfigError) {
        let bytes: [UInt8]
        do {
            bytes = try FileSystem.read(file)
        } catch {
            throw ConfigError(key: "", "cannot read the config file: \(error.reason)", file: file)
        }
        let value: JSONValue
        do {
            value = try JSONValue(parsing: bytes)
        } catch {
            throw ConfigSyntaxError(error, in: bytes).configError(file: file)
        }
        let directory = file.contains("/") ? String(file[..<file.lastIndex(of: "/")!]) : "."
        let base = FileSystem.resolve(directory.isEmpty ? "/" : directory, against: FileSystem.currentDirectory())
        do {
            try self.init(json: value, baseDirectory: base)
        } catch {
            throw error.in(file)
        }
        self.file = file
    }

    /// Reads a config from its JSON form; relative paths resolve against `baseDirectory`.
    public init(json: JSONValue, baseDirectory: String) throws(ConfigError) {
        var top = try ConfigReader(json, path: "")
        app = try top.string("app", expected: "must be a string, the app's name")
        if let app, !Self.isValidAppName(app) {
            throw ConfigError(key: "app", "must be 1-64 characters of letters, digits, '-', '_' or '.'")
        }
        model = top.value("model")
        if var update = try top.section("update") {
            let builtin = try update.string("builtin", expected: "must be a string naming a built-in app")
            let plugin = try update.string("plugin", expected: "must be a string naming a key of \"plugins\"")
            try update.rejectUnknownKeys()
            switch (builtin, plugin) {
            case (let name?, nil): self.update = .builtin(name)
            case (nil, let name?): self.update = .plugin(name)
            default: throw ConfigError(key: "update", "must have exactly one of \"builtin\" or \"plugin\"")
            }
        }
        if var pluginsSection = try top.section("plugins") {
            for name in pluginsSection.object.keys {
                guard var section = try pluginsSection.section(name) else { continue }
                plugins.append((name, try Self.plugin(&section, baseDirectory: baseDirectory)))
            }
            try pluginsSection.rejectUnknownKeys()
        }
        if let sources = top.value("dbus") {
            guard case .array(let items) = sources else { throw ConfigError(key: "dbus", "must be an array") }
            dbus = try Self.dbusSources(items)
        }
        if var section = try top.section("expose") { expose = try Self.expose(&section) }
        if var socket = try top.section("socket") {
            socketPath = try socket.string("path", expected: "must be a string, a file path").map {
                FileSystem.resolve($0, against: baseDirectory)
            }
            let modeForm = "must be an octal string like \"0660\""
            if let mode = try socket.string("mode", expected: modeForm) {
                guard mode.count >= 3, mode.count <= 4, let parsed = UInt32(mode, radix: 8), parsed <= 0o777 else {
                    throw ConfigError(key: "socket.mode", modeForm)
                }
                socketMode = parsed
            }
            socketGroup = try socket.string("group", expected: "must be a string, a group name or gid")
            maxLineBytes = try socket.integer("maxLineBytes", range: 64...(1 << 30)) ?? maxLineBytes
            maxOutputBytes = try socket.integer("maxOutputBytes", range: 4096...(1 << 34)) ?? maxOutputBytes
            maxConnections = try socket.integer("maxConnections", range: 1...1_000_000) ?? maxConnections
            maxConnectionsPerUser =
                try socket.integer("maxConnectionsPerUser", range: 1...1_000_000) ?? maxConnectionsPerUser
            stallTimeout = try socket.seconds("stallTimeout", range: Self.stallTimeoutRange) ?? stallTimeout
            try socket.rejectUnknownKeys()
        }
        if var access = try top.section("access") {
            accessRead = try access.strings("read")
            accessWrite = try access.strings("write")
            try access.rejectUnknownKeys()
        }
        if var state = try top.section("state") {
            stateDirectory = try state.string("directory", expected: "must be a string, a directory path").map {
                FileSystem.resolve($0, against: baseDirectory)
            }
            let fsyncForm = "must be \"always\", \"batch\" or \"never\""
            if let policy = try state.string("fsync", expected: fsyncForm) {
                guard let parsed = FsyncPolicy(rawValue: policy) else {
                    throw ConfigError(
                        key: "state.fsync",
                        fsyncForm + ConfigSuggestion.hint(for: policy, among: ["always", "batch", "never"]))
                }
                fsync = parsed
            }
            snapshotEvents = try state.integer("snapshotEvents", range: 1...1_000_000_000) ?? snapshotEvents
            snapshotBytes = try state.integer("snapshotBytes", range: 4096...(1 << 40)) ?? snapshotBytes
            segmentBytes = try state.integer("segmentBytes", range: 4096...(1 << 40)) ?? segmentBytes
            logWindowBytes = try state.integer("logWindowBytes", range: 0...(1 << 34)) ?? logWindowBytes
            keepSnapshots = try state.integer("keepSnapshots", range: 2...100_000) ?? keepSnapshots
            try state.rejectUnknownKeys()
        }
        try top.rejectUnknownKeys()
    }

    /// Bounds of the durations in seconds (docs/protocol.md 6): wide enough for any real use, narrow enough that no
    /// timer or deadline computed from them overflows.
    static let stallTimeoutRange = 0.1...86_400.0
    static let pluginTimeoutRange = 0.001...86_400.0
    static let restartDelayRange = 0.001...86_400.0
    static let restartIntervalRange = 0.1...86_400.0

    static func isValidAppName(_ name: String) -> Bool { AppSocketPaths.isValidAppName(name) }

    /// An `env` value with each `:`-separated element that is `.`, `..` or starts with `./` or `../` resolved
    /// against the config file's directory, as `exec` paths are; other elements (absolute paths, words, URLs) as
    /// written.
    private static func resolvingRelativePaths(_ value: String, against baseDirectory: String) -> String {
        value.split(separator: ":", omittingEmptySubsequences: false).map { element in
            let relative = element == "." || element == ".." || element.hasPrefix("./") || element.hasPrefix("../")
            return relative ? FileSystem.resolve(String(element), against: baseDirectory) : String(element)
        }.joined(separator: ":")
    }

    private static func plugin(_ section: inout ConfigReader, baseDirectory: String) throws(ConfigError) -> Plugin {
        guard let exec = try section.strings("exec"), let program = exec.first, !program.isEmpty else {
            throw ConfigError(key: section.keyPath("exec"), "must be a non-empty array of strings (program, args…)")
        }
        var resolved = exec
        // A path with a slash resolves against the config file; a bare name is looked up on PATH at start.
        if program.contains("/") { resolved[0] = FileSystem.resolve(program, against: baseDirectory) }
        var plugin = Plugin(exec: resolved)
        if let options = section.value("options") {
            guard case .object = options else {
                throw ConfigError(key: section.keyPath("options"), "must be an object")
            }
            plugin.options = options
        }
        if var env = try section.section("env") {
            for key in env.object.keys {
                guard !key.hasPrefix("MOBIUSD_") else {
                    throw ConfigError(key: env.keyPath(key), "MOBIUSD_ variables are set by the daemon itself")
                }
                guard let value = try env.string(key) else { continue }
                plugin.env.append((key, Self.resolvingRelativePaths(value, against: baseDirectory)))
            }
        }
        plugin.timeout = try section.seconds("timeout", range: Self.pluginTimeoutRange) ?? plugin.timeout
        plugin.concurrency = try section.integer("concurrency", range: 1...100_000) ?? plugin.concurrency
        plugin.maxBatch = try section.integer("maxBatch", range: 1...65_536) ?? plugin.maxBatch
        plugin.crashesPerEvent = try section.integer("crashesPerEvent", range: 1...100) ?? plugin.crashesPerEvent
        plugin.startTimeout = try section.seconds("startTimeout", range: Self.pluginTimeoutRange) ?? plugin.startTimeout
        plugin.updateTimeout =
            try section.seconds("updateTimeout", range: Self.pluginTimeoutRange) ?? plugin.updateTimeout
        plugin.maxLineBytes = try section.integer("maxLineBytes", range: 1024...(1 << 30)) ?? plugin.maxLineBytes
        plugin.maxQueued = try section.integer("maxQueued", range: 1...1_000_000) ?? plugin.maxQueued
        plugin.user = try section.string("user", expected: "must be a string, a user name or uid")
        plugin.group = try section.string("group", expected: "must be a string, a group name or gid")
        if let onError = section.value("onError") {
            guard case .object = onError else {
                throw ConfigError(key: section.keyPath("onError"), "must be an event template (a JSON object)")
            }
            plugin.onError = onError
        }
        if var restart = try section.section("restart") {
            plugin.restart.initialDelay =
                try restart.seconds("initialDelay", range: Self.restartDelayRange) ?? plugin.restart.initialDelay
            plugin.restart.maxDelay =
                try restart.seconds("maxDelay", range: Self.restartDelayRange) ?? plugin.restart.maxDelay
            plugin.restart.burst = try restart.integer("burst", range: 1...1000) ?? plugin.restart.burst
            plugin.restart.interval =
                try restart.seconds("interval", range: Self.restartIntervalRange) ?? plugin.restart.interval
            if plugin.restart.maxDelay < plugin.restart.initialDelay {
                throw ConfigError(key: restart.keyPath("maxDelay"), "must not be less than initialDelay")
            }
            try restart.rejectUnknownKeys()
        }
        try section.rejectUnknownKeys()
        return plugin
    }
}
