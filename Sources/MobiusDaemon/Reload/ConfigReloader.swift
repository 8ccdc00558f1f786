import MobiusCore
import MobiusSystem

/// SIGHUP (docs/protocol.md 4): reads the config file again, validates it as start-up would, and applies it, or keeps the
/// running config and says why. Reactor thread, except the reading and validating, which run on a thread of their
/// own (the file may block; user and group names in access lists go through NSS).
///
/// Applied at once: access lists and socket limits (to open connections too, `ControlServer.apply`), and whatever
/// the parts registered with `ReloadRegistry` handle (plugins, D-Bus sources). Reported as needing a restart,
/// unchanged until then: `app`, `model`, `update`, `socket.path`, `socket.mode`, `socket.group` and the `state` keys
/// (`RestartOnlySettings`). SIGHUPs that arrive during a reload are folded into one more reload after it.
final class ConfigReloader<Model, Event, Effect> {
    /// The setup the daemon started with: what restart-only settings are compared against.
    private let started: DaemonSetup<Model, Event, Effect>
    /// The setup last applied.
    private var current: DaemonSetup<Model, Event, Effect>
    private unowned let runtime: DaemonRuntime<Model, Event, Effect>
    /// Reads and validates new configs: a thread of its own (started with the first SIGHUP), so a config path that
    /// blocks (a FIFO, a hung network file system) holds up only reloads, not the shared worker's /proc samples.
    private let reader = BlockingWorker(name: "mobiusd-reload")
    private var inProgress = false
    private var again = false
    /// Who waits for the reload in progress (`reload` commands), and for the one after it.
    private var waiting: [(Outcome) -> Void] = []
    private var waitingAgain: [(Outcome) -> Void] = []

    /// How a reload ended: applied (what, and the restart-only keys that changed), or refused (the config's error).
    enum Outcome {
        case applied(reloaded: [String], needRestart: [String])
        case refused(ConfigError)
    }

    init(setup: DaemonSetup<Model, Event, Effect>, runtime: DaemonRuntime<Model, Event, Effect>) {
        started = setup
        current = setup
        self.runtime = runtime
    }

    /// Starts a reload (a SIGHUP arrived, or a `reload` command); `done` gets its outcome. One asked for while a
    /// reload runs gets the outcome of the next one, which reads the file again.
    func reload(_ trigger: String = "SIGHUP", then done: ((Outcome) -> Void)? = nil) {
        guard !inProgress else {
            again = true
            if let done { waitingAgain.append(done) }
            return
        }
        if let done { waiting.append(done) }
        runtime.systemd.beginReload()
        guard let file = current.options.configFile else {
            runtime.log.notice("\(trigger): no --config, nothing to reload")
            runtime.systemd.endReload(outcome: "reloaded: nothing to reload (no --config)")
            tell(.applied(reloaded: [], needRestart: []))
            return
        }
        inProgress = true
        runtime.log.notice("\(trigger): reloading \(file)")
        let base = UncheckedSendable(value: current)
        let reloader = UncheckedSendable(value: self)
        let waker = runtime.reactor.waker
        reader.submit {
            let result = Result { () throws(ConfigError) in
                let config = try DaemonConfig(file: file)
                return UncheckedSendable(
                    value: try DaemonSetup(config: config, options: base.value.options, app: base.value.app))
            }
            waker.post { reloader.value.finish(result) }
        }
    }

    private func finish(_ result: Result<UncheckedSendable<DaemonSetup<Model, Event, Effect>>, ConfigError>) {
        inProgress = false
        let log = runtime.log
        switch result {
        case .failure(let error):
            log.error("reload refused, the running configuration is kept: \(error)")
            runtime.systemd.endReload(outcome: "reload refused, configuration kept: \(error)", refused: true)
            tell(.refused(error))
        case .success(let carried):
            let new = carried.value
            let restartOnly = RestartOnlySettings.changes(from: started, to: new)
            for change in restartOnly {
                log.warning("reload: \(change) changed; it takes effect at the next restart")
            }
            runtime.server.apply(new.settings)
            let applied = runtime.reloads.apply(ReloadRegistry.Change(old: current.config, new: new.config))
            current = new
            let summary = applied.isEmpty ? "" : " (\(applied.joined(separator: "; ")))"
            log.notice("reloaded: access lists and socket limits applied\(summary)")
            let pending = restartOnly.isEmpty ? "" : "; needs a restart for \(restartOnly.joined(separator: ", "))"
            runtime.systemd.endReload(outcome: "reloaded\(pending)")
            tell(.applied(reloaded: ["access", "socket"] + applied, needRestart: restartOnly))
        }
        if again {
            again = false
            let next = waitingAgain
            waitingAgain = []
            reload()
            waiting.append(contentsOf: next)
        }
    }

    private func tell(_ outcome: Outcome) {
        let told = waiting
        waiting = []
        for done in told { done(outcome) }
    }
}
