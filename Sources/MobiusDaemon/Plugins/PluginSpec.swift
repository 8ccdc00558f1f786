import MobiusJSON
import MobiusSystem

/// A configured plugin resolved for starting: program path, argv, the exact environment and the account
/// (docs/protocol.md 2.1). Built once at start-up (and by `--check`), so no lookup blocks the reactor later.
struct PluginSpec: Sendable {
    let name: String
    let program: String
    let arguments: [String]
    let environment: [String]
    let credentials: PipedProcess.Credentials?
    let config: DaemonConfig.Plugin

    /// The program and the arguments that are paths (containing a `/`): the files whose change a reload notices
    /// for an update plugin.
    var files: [String] { [program] + arguments.filter { $0.contains("/") } }

    /// Whether `files` differ now from their versions `started` (as a start saw them): a reload restarts an update
    /// plugin whose files changed.
    func filesChanged(since started: [FileVersion?]) -> Bool {
        started != files.map(FileSystem.version)
    }

    /// Variables passed through from the daemon's own environment when set.
    static let inherited = ["PATH", "HOME", "LANG", "LC_ALL", "TZ"]

    /// Resolves `plugin` named `name` for the app `app`.
    /// - Throws: `ConfigError` naming `plugins.NAME.exec` when the program is not an executable file (a bare name
    ///   not found on PATH), `plugins.NAME.user`/`group` for accounts that do not exist or that a daemon not
    ///   running as root cannot switch to.
    static func resolve(name: String, plugin: DaemonConfig.Plugin, app: String) throws(ConfigError) -> PluginSpec {
        let key = "plugins.\(name)"
        let requested = plugin.exec[0]
        let program: String
        if requested.contains("/") {
            guard FileSystem.isExecutable(requested) else {
                throw ConfigError(key: "\(key).exec", "\"\(requested)\" is not an executable file")
            }
            program = requested
        } else {
            guard let found = DaemonSetup<JSONValue, JSONValue, JSONValue>.searchPath(requested) else {
                throw ConfigError(key: "\(key).exec", "\"\(requested)\" was not found on PATH")
            }
            program = found
        }
        let ownUID = SystemProcess.userID
        var account: UserAccount?
        if let user = plugin.user {
            guard let found = UserAccount.lookUp(user) else {
                throw ConfigError(
                    key: "\(key).user",
                    "no such user \"\(user)\"\(ConfigSuggestion.hint(for: user, among: UserDatabase.allUserNames()))")
            }
            if ownUID != 0 && found.uid != ownUID {
                throw ConfigError(
                    key: "\(key).user",
                    "the daemon runs as uid \(ownUID), not root, so it cannot run a plugin as \"\(user)\"")
            }
            account = found
        }
        var groupID: UInt32?
        if let group = plugin.group {
            guard let gid = UInt32(group) ?? UserDatabase.groupID(named: group) else {
                throw ConfigError(
                    key: "\(key).group",
                    "no such group \"\(group)\"\(ConfigSuggestion.hint(for: group, among: UserDatabase.allGroupNames()))"
                )
            }
            if ownUID != 0 && gid != SystemProcess.groupID {
                throw ConfigError(
                    key: "\(key).group",
                    "the daemon runs as uid \(ownUID), not root, so it cannot run a plugin in group \"\(group)\"")
            }
            groupID = gid
        }
        if ownUID == 0, account != nil || groupID != nil {
            // A root daemon confined by its unit may lack these: it could not start the plugin as that account, or
            // not signal it there to end it (a timeout, a restart, shutdown), so the config is refused now.
            var needed: [SystemProcess.Capability] = [.setGID]
            if let account, account.uid != 0 { needed += [.setUID, .kill] }
            let held = SystemProcess.effectiveCapabilities()
            let missing = needed.filter { !held.contains($0) }
            if !missing.isEmpty {
                throw ConfigError(
                    key: "\(key).\(account != nil ? "user" : "group")",
                    "the daemon runs as root without \(missing.map(\.description).joined(separator: ", ")), so it "
                        + "cannot run this plugin as another account and end it again; give it those capabilities "
                        + "(systemd: CapabilityBoundingSet=CAP_SETUID CAP_SETGID CAP_KILL, docs/systemd.md)")
            }
        }
        var credentials: PipedProcess.Credentials?
        if ownUID == 0 && (account != nil || groupID != nil) {
            let uid = account?.uid ?? 0
            let gid = groupID ?? account?.gid ?? 0
            let groups = account.map { UserDatabase.groups(ofUser: $0.uid, primaryGroup: gid) } ?? [gid]
            credentials = PipedProcess.Credentials(uid: uid, gid: gid, groups: groups)
        }
        var environment: [String] = []
        let overridden = Set(plugin.env.map(\.0))
        for variable in inherited where !overridden.contains(variable) {
            if variable == "HOME", let account {
                environment.append("HOME=\(account.home)")
            } else if let value = SystemProcess.environment(variable) {
                environment.append("\(variable)=\(value)")
            }
        }
        // The config refuses MOBIUSD_ names; the protocol's own variables are the host's to set.
        for (variable, value) in plugin.env where !variable.hasPrefix("MOBIUSD_") {
            environment.append("\(variable)=\(value)")
        }
        environment += [
            "MOBIUSD_PLUGIN=1", "MOBIUSD_PROTOCOL=1", "MOBIUSD_PLUGIN_NAME=\(name)", "MOBIUSD_APP=\(app)",
        ]
        return PluginSpec(
            name: name, program: program, arguments: plugin.exec, environment: environment, credentials: credentials,
            config: plugin)
    }

    /// Everything that makes a start differ, as text: two specs with the same fingerprint start the same plugin
    /// the same way (a reload keeps such a plugin running).
    var fingerprint: String {
        let restart = config.restart
        let parts: [JSONValue] = [
            .string(program), .array(arguments.map { .string($0) }), .array(environment.map { .string($0) }),
            .string(credentials.map { "\($0.uid):\($0.gid):\($0.groups)" } ?? ""), config.options,
            config.onError ?? .null,
            .string(
                "\(config.timeout) \(config.startTimeout) \(config.concurrency) \(config.maxQueued) \(config.maxLineBytes) \(config.crashesPerEvent) "
                    + "\(config.updateTimeout) \(config.maxBatch) \(restart.initialDelay) \(restart.maxDelay) \(restart.burst) \(restart.interval)"
            ),
        ]
        return String(decoding: JSONValue.array(parts).encoded(), as: UTF8.self)
    }
}
