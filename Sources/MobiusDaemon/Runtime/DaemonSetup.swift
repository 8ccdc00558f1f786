import MobiusJSON
import MobiusSystem

/// Everything resolved from the config and flags before the daemon serves: the app, the socket, the limits.
struct DaemonSetup<Model, Event, Effect> {
    let app: DaemonApp<Model, Event, Effect>
    let config: DaemonConfig
    let options: DaemonOptions
    let socketPath: String
    /// Whether the socket path is the default one (its directory is created if missing).
    let defaultSocket: Bool
    let settings: ServerSettings
    let socketGroup: UInt32?

    init(
        config: DaemonConfig, options: DaemonOptions, app chosen: DaemonApp<Model, Event, Effect>
    )
        throws(ConfigError)
    {
        var app = chosen.with(name: config.app)
        if let model = config.model {
            do {
                app = app.with(initialModel: try chosen.codec.decodeModel(model))
            } catch {
                throw ConfigError(key: "model", "does not fit the app's model: \(error)")
            }
        }
        self.app = app
        self.config = config
        self.options = options
        if let path = options.socketPath ?? config.socketPath {
            socketPath = FileSystem.resolve(path, against: FileSystem.currentDirectory())
            defaultSocket = false
        } else {
            socketPath = Self.defaultSocketPath(app: app.name)
            defaultSocket = true
        }
        guard socketPath.utf8.count <= 107 else {
            throw ConfigError(key: "socket.path", "is longer than a Unix socket path may be (107 bytes)")
        }
        let daemonUID = SystemProcess.userID
        var access = AccessPolicy.defaults(daemonUID: daemonUID)
        if let read = config.accessRead {
            access = AccessPolicy(read: try Self.rules(read, key: "access.read"), write: access.write)
        }
        if let write = config.accessWrite {
            access = AccessPolicy(read: access.read, write: try Self.rules(write, key: "access.write"))
        }
        if let group = config.socketGroup {
            guard let gid = UInt32(group) ?? UserDatabase.groupID(named: group) else {
                throw ConfigError(key: "socket.group", "no such group \"\(group)\"")
            }
            socketGroup = gid
        } else {
            socketGroup = nil
        }
        settings = ServerSettings(
            maxLineBytes: config.maxLineBytes, maxOutputBytes: config.maxOutputBytes,
            maxConnections: config.maxConnections, maxConnectionsPerUser: config.maxConnectionsPerUser,
            stallTimeout: config.stallTimeout, access: access)
    }

    /// `$XDG_RUNTIME_DIR/mobiusd/<app>.sock`, or `/tmp/mobiusd-<uid>/<app>.sock` without XDG_RUNTIME_DIR.
    static func defaultSocketPath(app: String) -> String {
        if let runtime = SystemProcess.environment("XDG_RUNTIME_DIR"), !runtime.isEmpty {
            return "\(runtime)/mobiusd/\(app).sock"
        }
        return "/tmp/mobiusd-\(SystemProcess.userID)/\(app).sock"
    }

    private static func rules(_ entries: [String], key: String) throws(ConfigError) -> [AccessPolicy.Rule] {
        var rules: [AccessPolicy.Rule] = []
        for (index, entry) in entries.enumerated() {
            guard let rule = AccessPolicy.rule(entry) else {
                let what = entry.hasPrefix("@") ? "group" : "user"
                throw ConfigError(key: "\(key)[\(index)]", "no such \(what) \"\(entry)\"")
            }
            rules.append(rule)
        }
        return rules
    }

    /// `--check`: what start-up would refuse, without starting. Plugin executables must exist.
    func check() throws(ConfigError) {
        for (name, plugin) in config.plugins {
            let program = plugin.exec[0]
            let found = program.contains("/") ? FileSystem.isExecutable(program) : Self.searchPath(program) != nil
            guard found else {
                throw ConfigError(key: "plugins.\(name).exec", "\"\(program)\" is not an executable file")
            }
        }
    }

    static func searchPath(_ program: String) -> String? {
        let path = SystemProcess.environment("PATH") ?? "/usr/local/bin:/usr/bin:/bin"
        return path.split(separator: ":").map { "\($0)/\(program)" }.first(where: FileSystem.isExecutable)
    }

    /// Binds the socket, starts the loop thread, and runs the I/O thread until SIGTERM/SIGINT.
    func serve(log: DaemonLog) throws {
        SystemProcess.ignoreBrokenPipe()
        // Signals are blocked before any thread starts, so only the signalfd sees them.
        let signals = try SignalFD([.terminate, .interrupt, .hangUp])
        if !config.plugins.isEmpty || !config.dbus.isEmpty {
            log.warning("plugins and D-Bus sources in the config are not run by this version yet")
        }
        if defaultSocket {
            let directory = String(socketPath[..<socketPath.lastIndex(of: "/")!])
            do {
                try FileSystem.makeDirectories(directory, mode: 0o755)
            } catch {
                throw DaemonStartError(description: "cannot create the socket directory: \(error)")
            }
        }
        let listener: FileDescriptor
        do {
            listener = try UnixSocket.listen(path: socketPath)
        } catch  where error.operation == "bind" && error.errno == SystemErrno.addressInUse {
            throw DaemonStartError(
                description: "\(socketPath): another mobiusd is already running there (it accepts connections)")
        } catch {
            throw DaemonStartError(description: "cannot listen on \(socketPath): \(error)")
        }
        do {
            try FileSystem.setMode(socketPath, config.socketMode)
            if let socketGroup { try FileSystem.setGroup(socketPath, socketGroup) }
        } catch {
            listener.close()
            try? FileSystem.remove(socketPath)
            throw DaemonStartError(description: "cannot set the socket's permissions: \(error)")
        }
        defer { try? FileSystem.remove(socketPath) }

        let stats = DaemonStats()
        let outbound = try OutboundQueue()
        let loop = DaemonLoop(
            app: app, inboundCapacity: 65536, outbound: outbound, stats: stats, log: log,
            epoch: Self.newEpoch(), version: MobiusDaemon.version)
        let server = try ControlServer(
            loop: loop, listener: listener, signals: signals, settings: settings, log: log)
        try SystemThread.spawn(name: "mobiusd-loop") { loop.run() }
        banner()
        try server.run()
        log.notice("stopped")
    }

    private func banner() {
        let example = String(decoding: app.exampleEvent.encoded(), as: UTF8.self)
        MobiusDaemon.printOut(
            """
            mobiusd \(MobiusDaemon.version): app "\(app.name)" listening on \(socketPath)
              send:  echo '\(example)' | socat - UNIX-CONNECT:\(socketPath)
              watch: mobiusctl --socket \(socketPath) watch

            """)
    }

    /// A new history's name: 16 random hex digits.
    static func newEpoch() -> String {
        let digits = Array("0123456789abcdef")
        return String(SystemProcess.randomBytes(8).flatMap { [digits[Int($0 >> 4)], digits[Int($0 & 15)]] })
    }
}
