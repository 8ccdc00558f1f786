import MobiusCore
import MobiusJSON
import MobiusSystem

/// Everything resolved from the config and flags before the daemon serves: the app, the socket, the limits.
struct DaemonSetup<Model, Event, Effect> {
    let app: DaemonApp<Model, Event, Effect>
    let config: DaemonConfig
    let options: DaemonOptions
    let socketPath: String
    /// Whether the socket path is the default one.
    let defaultSocket: Bool
    /// Whether the socket is in the private `/tmp/mobiusd-<uid>` fallback (its directory is made 0700).
    let isPrivateFallback: Bool
    let settings: ServerSettings
    let socketGroup: UInt32?
    /// The plugins to run, resolved (program found, environment and account decided).
    let plugins: [PluginSpec]

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
        isPrivateFallback = defaultSocket && SystemProcess.environment("XDG_RUNTIME_DIR").map(\.isEmpty) != false
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
                throw ConfigError(
                    key: "socket.group",
                    "no such group \"\(group)\"\(ConfigSuggestion.hint(for: group, among: UserDatabase.allGroupNames()))"
                )
            }
            socketGroup = gid
        } else {
            socketGroup = nil
        }
        plugins = try Self.resolvePlugins(config: config, app: app)
        settings = ServerSettings(
            maxLineBytes: config.maxLineBytes, maxOutputBytes: config.maxOutputBytes,
            maxConnections: config.maxConnections, maxConnectionsPerUser: config.maxConnectionsPerUser,
            stallTimeout: config.stallTimeout, access: access)
    }

    /// `$XDG_RUNTIME_DIR/mobiusd/<app>.sock`, or `/tmp/mobiusd-<uid>/<app>.sock` without XDG_RUNTIME_DIR.
    static func defaultSocketPath(app: String) -> String {
        AppSocketPaths.daemonDefault(
            app: app, runtimeDirectory: SystemProcess.environment("XDG_RUNTIME_DIR"), userID: SystemProcess.userID)
    }

    private static func rules(_ entries: [String], key: String) throws(ConfigError) -> [AccessPolicy.Rule] {
        var rules: [AccessPolicy.Rule] = []
        for (index, entry) in entries.enumerated() {
            guard let rule = AccessPolicy.rule(entry) else {
                let what = entry.hasPrefix("@") ? "group" : "user"
                let known =
                    entry.hasPrefix("@")
                    ? UserDatabase.allGroupNames().map { "@\($0)" } : UserDatabase.allUserNames()
                throw ConfigError(
                    key: "\(key)[\(index)]",
                    "no such \(what) \"\(entry)\"\(ConfigSuggestion.hint(for: entry, among: known))")
            }
            rules.append(rule)
        }
        return rules
    }

    /// `--check`: what start-up would refuse, without serving: every plugin is started, its handshake checked
    /// (protocol version, routing conflicts, `update` for the update plugin), and shut down again.
    func check() throws(ConfigError) {
        try PluginCheck.run(plugins, updatePlugin: app.updatePlugin)
    }

    /// The config's plugins, or (for the embedded default app, which has no config file) the app's bundled
    /// plugins that are installed next to the daemon's executable or on PATH.
    private static func resolvePlugins(
        config: DaemonConfig, app: DaemonApp<Model, Event, Effect>
    ) throws(ConfigError) -> [PluginSpec] {
        var specs: [PluginSpec] = []
        for (name, plugin) in config.plugins {
            specs.append(try PluginSpec.resolve(name: name, plugin: plugin, app: app.name))
        }
        guard config.file == nil else { return specs }
        let executableDirectory = SystemProcess.executablePath.map { path in
            path.lastIndex(of: "/").map { String(path[..<$0]) } ?? "."
        }
        for (name, program) in app.bundledPlugins {
            let besideDaemon = executableDirectory.map { "\($0)/\(program)" }
            guard let path = besideDaemon.flatMap({ FileSystem.isExecutable($0) ? $0 : nil }) ?? searchPath(program)
            else { continue }
            specs.append(
                try PluginSpec.resolve(name: name, plugin: DaemonConfig.Plugin(exec: [path]), app: app.name))
        }
        return specs
    }

    static func searchPath(_ program: String) -> String? {
        let path = SystemProcess.environment("PATH") ?? "/usr/local/bin:/usr/bin:/bin"
        return path.split(separator: ":").map { "\($0)/\(program)" }.first(where: FileSystem.isExecutable)
    }

    /// Stack size of the reactor thread, which runs the loop (the app's update), the control server and effect
    /// dispatch. Set explicitly, not inherited from RLIMIT_STACK: no input drives recursion (JSON and JSON Pointers
    /// are limited to 512 levels, models too), so the app's own code is what the size is for. Only the pages used
    /// become resident.
    static var reactorStackSize: Int { 16 << 20 }

    /// Binds the socket and runs the reactor thread until SIGTERM/SIGINT has been handled.
    ///
    /// - Parameter identity: the program, for the banner.
    func serve(log: DaemonLog, identity: ProgramIdentity) throws {
        SystemProcess.ignoreBrokenPipe()
        // Blocked for this thread and those it starts; SystemThread's threads are born with them blocked whenever
        // they start, so only the signalfd sees them.
        let signals = try SignalFD([.terminate, .interrupt, .hangUp])
        try DebugSystemCallFaults.installFromEnvironment(log: log)
        raiseOpenFilesLimit(log: log)
        SystemProcess.ignoreFileSizeLimitSignal()
        // The state directory is locked before the socket is bound: a second daemon on it stops here.
        let statePath =
            options.ephemeral
            ? nil
            : StateDirectory.resolve(flag: options.stateDirectory, configured: config.stateDirectory, app: app.name)
        let journal = try DaemonJournal.open(settings: JournalSettings(config), path: statePath, log: log)
        let activated = try SocketActivation.take()
        let listener = try activated?.listener ?? bindListener()
        let listeningOn = activated.map { $0.path ?? "the socket systemd passed" } ?? socketPath
        // A socket systemd passed stays systemd's: never unlinked, so the next start finds it.
        defer { if activated == nil { try? FileSystem.remove(socketPath) } }

        let stats = DaemonStats()
        MobiusHooks.setErrorHandler { message, _, _ in
            stats.libraryErrors.add(1, ordering: .relaxed)
            log.limited("library error", .error, "the Mobius library reported a misuse: \(message)")
        }
        let outcome = Locked<Result<Void, any Error>>(.success(()))
        // Handed to the reactor thread, which alone uses them from here on.
        let handed = UncheckedSendable(value: (setup: self, journal: journal))
        let reactorThread = try SystemThread.spawn(name: "mobiusd", stackSize: Self.reactorStackSize, joinable: true) {
            let result = Result { () throws in
                let (setup, journal) = handed.value
                let runtime = try DaemonRuntime(
                    setup: setup, listener: listener, signals: signals, log: log, stats: stats, journal: journal)
                KeptUntilExit.keep(runtime)
                // Recovery (snapshot, replay) before serving: the app's update runs on this thread's stack.
                try journal.recover(into: runtime.loop, notifier: runtime.systemd.notifier)
                journal.attach(to: runtime)
                defer { journal.close() }
                runtime.sampleResidentSize()
                setup.banner(listeningOn: listeningOn, identity: identity, log: log)
                try runtime.run()
                if let problem = runtime.startProblem { throw DaemonStartError(description: problem) }
            }
            outcome.withLock { $0 = result }
        }
        reactorThread.join()
        try outcome.withLock { $0 }.get()
        log.notice("stopped")
    }

    /// Raises the soft open-files limit to the hard one: the default soft limit (1024 under systemd) is below
    /// `maxConnections` plus the daemon's own descriptors.
    private func raiseOpenFilesLimit(log: DaemonLog) {
        do {
            let (before, after) = try ResourceLimits.raiseOpenFilesToHardLimit()
            let needed = settings.maxConnections + 64
            let figure = before == after ? "\(after)" : "\(after) (raised from \(before))"
            if after < UInt64(needed) {
                log.warning(
                    "open files limit \(figure) is below maxConnections (\(settings.maxConnections)) plus the daemon's own; "
                        + "past it the daemon stops accepting until descriptors are freed")
            } else {
                log.info("open files limit \(figure)")
            }
        } catch {
            log.warning("cannot raise the open files limit: \(error)")
        }
    }

    /// The start-up lines: the program and its version, the app and its socket, and how to talk to it with the
    /// running app's example event. On stdout for people; under systemd (the log goes to the journal) one notice
    /// like every other line, since stdout there is a journal stream without priorities.
    private func banner(listeningOn path: String, identity: ProgramIdentity, log: DaemonLog) {
        let listening = "\(identity.versionLine): app \"\(app.name)\" listening on \(path)"
        let watch = "mobiusctl \(mobiusctlTarget(path)) watch"
        guard log.style == .plain else {
            log.notice("\(listening); watch: \(watch)")
            return
        }
        let example = app.exampleEvent.map { String(decoding: $0.encoded(), as: UTF8.self) } ?? "EVENT"
        MobiusDaemon.printOut(
            """
            \(listening)
              send:  echo '\(example)' | socat - UNIX-CONNECT:\(path)
              watch: \(watch)

            """)
    }

    /// `--app NAME` when mobiusctl's `--app` finds `path` (the first socket where it looks), else `--socket PATH`.
    private func mobiusctlTarget(_ path: String) -> String {
        guard AppSocketPaths.isValidAppName(app.name) else { return "--socket \(path)" }
        let searched = AppSocketPaths.searched(
            app: app.name, runtimeDirectory: SystemProcess.environment("XDG_RUNTIME_DIR"), userID: SystemProcess.userID)
        let found = searched.first { (try? FileSystem.status($0, followingLinks: true))??.kind == .socket }
        return found == path ? "--app \(app.name)" : "--socket \(path)"
    }

}
