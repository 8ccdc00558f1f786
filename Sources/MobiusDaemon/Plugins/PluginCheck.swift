import MobiusJSON
import MobiusSystem

/// `--check` for plugins (docs/protocol.md 2.4, 6): starts every plugin on a reactor of its own, checks its handshake,
/// shuts it down again, and reports what start-up would refuse.
enum PluginCheck {
    /// - Throws: `ConfigError` naming `plugins.NAME` for each plugin that did not start (its reason), routing
    ///   conflicts (naming both plugins), and an update plugin that does not announce `update`.
    static func run(_ specs: [PluginSpec], updatePlugin: String?) throws(ConfigError) {
        guard !specs.isEmpty else { return }
        let log = DaemonLog(threshold: .warning)
        defer { log.flush() }
        let reactor: Reactor
        do {
            reactor = try Reactor()
        } catch {
            throw ConfigError(key: "plugins", "cannot check the plugins: \(error)")
        }
        // --check runs no loop: plugin events go nowhere, and there is always room for them.
        let noLoop = PluginPort(hasRoom: { true }, whenRoom: { $0() }, deliver: { _, _ in }, stateChanged: { _ in })
        let host = PluginHost(
            specs: specs, updatePlugin: updatePlugin, backpressure: EdgeBackpressure(), loop: noLoop, reactor: reactor,
            log: log)
        KeptUntilExit.keep(host)
        reactor.atEndOfEachRound { host.flushAll() }
        var problems: [(key: String, message: String)] = []
        host.start { startup in
            problems = startup.map { ("plugins", $0) }
            for runner in host.runners where runner.state != .running {
                problems.append(("plugins.\(runner.name)", runner.lastProblem ?? "did not start"))
            }
            if let updatePlugin, let runner = host.runner(named: updatePlugin), runner.state == .running,
                !runner.handlesUpdate
            {
                problems.append(("update.plugin", "plugin \(updatePlugin) did not answer \"update\": true"))
            }
            host.stop { reactor.stop() }
        }
        do {
            try reactor.run()
        } catch {
            throw ConfigError(key: "plugins", "cannot check the plugins: \(error)")
        }
        if let first = problems.first {
            let rest = problems.dropFirst().map { "\($0.key): \($0.message)" }
            throw ConfigError(key: first.key, ([first.message] + rest).joined(separator: "; "))
        }
    }
}
