import MobiusJSON
import MobiusSystem

/// The daemon's plugins (docs/protocol.md section 2): starts and supervises each one on the reactor, routes effects to
/// them by key, and hands what they send to the loop.
///
/// Start-up waits until every plugin has settled its first start (initialized, or failed to start): the loop
/// starts then, so the app's initiate finds its effects' plugins in place. Two plugins claiming one key at
/// start-up fail the start, naming both; after start-up a restarted plugin whose keys collide is refused
/// (`failed`).
final class PluginHost: PluginRunnerOwner {
    private(set) var runners: [PluginRunner] = []
    private var routes: [String: PluginRunner] = [:]
    private let log: DaemonLog
    private let reactor: Reactor
    /// The plugin that is the app's update, if any: its stdout is always read, since the loop waits for it.
    private let updatePlugin: String?
    private let backpressure: EdgeBackpressure
    private var settled: (() -> Void)?
    private var startupProblems: [String] = []
    private var startingUp = false
    private var stopping = false
    /// Plugins a reload removed or replaced, still shutting down.
    private var retiring: [PluginRunner] = []
    private var retiringDone: (() -> Void)?

    /// The loop's side: room, events, state changes.
    private let loop: PluginPort

    init(
        specs: [PluginSpec], updatePlugin: String?, backpressure: EdgeBackpressure, loop: PluginPort,
        reactor: Reactor, log: DaemonLog
    ) {
        self.loop = loop
        self.log = log
        self.reactor = reactor
        self.updatePlugin = updatePlugin
        self.backpressure = backpressure
        runners = specs.map { spec in PluginRunner(spec: spec, owner: self, reactor: reactor, log: log) }
    }

    /// Writes what every plugin's stdin has queued. Registered to run at the end of each reactor round, after the
    /// loop's passes, so the effects and update requests of a pass go out in one write per plugin.
    func flushAll() {
        for runner in runners { runner.flush() }
        for runner in retiring { runner.flush() }
    }

    /// The plugin named `name`.
    func runner(named name: String) -> PluginRunner? {
        runners.first { $0.name == name }
    }

    // MARK: - Start and stop

    /// Starts every plugin; `done` gets the start-up problems (routing conflicts, an update plugin that does not
    /// update) once every plugin has settled its first start; empty means start-up may go on.
    func start(then done: @escaping ([String]) -> Void) {
        startingUp = true
        settled = { [unowned self] in
            startingUp = false
            done(startupProblems)
        }
        for runner in runners { runner.start() }
        // Called before the reactor's first round: nothing else would write the `initialize` requests yet.
        flushAll()
        checkSettled()
    }

    private func checkSettled() {
        guard let settled, runners.allSatisfy(\.hasSettled) else { return }
        self.settled = nil
        settled()
    }

    /// Shuts every plugin down (docs/protocol.md 2.2) and calls `done` when all have ended.
    func stop(then finished: @escaping () -> Void) {
        stopping = true
        let done = { [unowned self] in
            if retiring.isEmpty {
                finished()
            } else {
                retiringDone = finished
            }
        }
        var remaining = runners.count
        guard remaining > 0 else {
            done()
            return
        }
        for runner in runners {
            runner.stop {
                remaining -= 1
                if remaining == 0 { done() }
            }
        }
    }

    // MARK: - Reload

    /// Applies a reloaded config's plugins: new ones start, removed ones stop, changed ones (any difference in
    /// program, arguments, environment, account, options or limits) are stopped and started anew, unchanged ones
    /// keep running. Effects routed to a replaced plugin wait for its successor. The update plugin is only replaced
    /// by a restart of the daemon. Returns a summary, or `nil` when nothing changed.
    func reload(_ specs: [PluginSpec]) -> String? {
        var changes: [String] = []
        var actions: [ReloadAction] = []
        let wanted = Set(specs.map(\.name))
        // The list changes while moved out of the object and the runners are started and stopped after it is
        // back, so the per-round `flushAll` reads it without a run-time exclusivity check (docs/architecture.md,
        // "Exclusivity").
        var list: [PluginRunner] = []
        swap(&list, &runners)
        for runner in list where !wanted.contains(runner.name) {
            guard runner.name != updatePlugin else {
                changes.append("\(runner.name) is the update and stays until a restart")
                continue
            }
            for (key, owner) in routes where owner === runner { routes[key] = nil }
            actions.append(.retire(runner))
            changes.append("\(runner.name) removed")
        }
        list.removeAll { !wanted.contains($0.name) && $0.name != updatePlugin }
        for spec in specs {
            guard let index = list.firstIndex(where: { $0.name == spec.name }) else {
                let runner = PluginRunner(spec: spec, owner: self, reactor: reactor, log: log)
                list.append(runner)
                actions.append(.start(runner))
                changes.append("\(spec.name) added")
                continue
            }
            let old = list[index]
            if spec.name == updatePlugin, old.state == .running, spec.filesChanged(since: old.startedFiles) {
                // Editing the update plugin and reloading is the edit loop: the same runner starts the new files,
                // the loop keeps its model, and nothing is replayed.
                actions.append(.restartNow(old))
                changes.append("\(spec.name) restarted (its files changed; the model is kept)")
                continue
            }
            guard old.spec.fingerprint != spec.fingerprint else { continue }
            guard spec.name != updatePlugin else {
                changes.append("\(spec.name) changed but is the update: it takes effect at the next restart")
                continue
            }
            let successor = PluginRunner(spec: spec, owner: self, reactor: reactor, log: log)
            for (key, owner) in routes where owner === old { routes[key] = successor }
            list[index] = successor
            actions.append(.retire(old))
            actions.append(.start(successor))
            changes.append("\(spec.name) restarted")
        }
        swap(&list, &runners)
        for action in actions {
            switch action {
            case .retire(let runner): retire(runner)
            case .start(let runner): runner.start()
            case .restartNow(let runner): runner.restartNow()
            }
        }
        return changes.isEmpty ? nil : changes.joined(separator: ", ")
    }

    /// What a reload does to a runner, in order, once the list of runners is in place.
    private enum ReloadAction {
        case retire(PluginRunner)
        case start(PluginRunner)
        case restartNow(PluginRunner)
    }

    /// Stops a plugin a reload removed or replaced; `stop(then:)` waits for it too.
    private func retire(_ runner: PluginRunner) {
        var list: [PluginRunner] = []
        swap(&list, &retiring)
        list.append(runner)
        swap(&list, &retiring)
        runner.stop { [unowned self] in
            var list: [PluginRunner] = []
            swap(&list, &retiring)
            list.removeAll { $0 === runner }
            swap(&list, &retiring)
            if retiring.isEmpty, let done = retiringDone {
                retiringDone = nil
                done()
            }
        }
    }

    // MARK: - Effects

    /// Sends `effect` to the plugin that claims `key`; `false` when none does.
    func route(_ effect: JSONValue, key: String) -> Bool {
        guard let runner = routes[key] else { return false }
        runner.submit(effect, key: key)
        return true
    }

    /// Every plugin's `status` entry, by name.
    var statusJSON: JSONValue {
        .object(JSONObject(runners.map { ($0.name, $0.statusJSON) }))
    }

    // MARK: - PluginRunnerOwner

    func plugin(_ runner: PluginRunner, sent event: JSONValue) {
        loop.deliver(event, runner)
    }

    func plugin(_ runner: PluginRunner, failed effect: JSONValue, code: PluginFailure, message: String) {
        let shown = String(decoding: effect.encoded().prefix(200), as: UTF8.self)
        let tail =
            code == .pluginExited || code == .protocolViolation || runner.stderrTail.isEmpty
            ? "" : "; last stderr: " + runner.stderrTail.suffix(3).joined(separator: " | ")
        log.limited(
            "plugin \(runner.name) effect failed", .warning,
            "effect \(shown) failed (\(code.rawValue)): \(message)\(tail)", fields: LogFields(plugin: runner.name))
        guard !stopping, case .object(var template)? = runner.spec.config.onError else { return }
        template["effect"] = effect
        template["error"] = .object(["code": .string(code.rawValue), "message": .string(message)])
        loop.deliver(.object(template), runner)
    }

    func plugin(_ runner: PluginRunner, announces keys: [String]) -> String? {
        for key in keys {
            if let other = routes[key], other !== runner {
                let problem = "plugins \(other.name) and \(runner.name) both claim effect key \"\(key)\""
                if startingUp { startupProblems.append(problem) }
                return problem
            }
        }
        for (key, owner) in routes where owner === runner && !keys.contains(key) { routes[key] = nil }
        for key in keys { routes[key] = runner }
        return nil
    }

    func pluginStateChanged(_ runner: PluginRunner) {
        loop.stateChanged(runner)
        checkSettled()
    }

    func mayDeliverEvents(from runner: PluginRunner) -> Bool {
        runner.name == updatePlugin || loop.hasRoom()
    }

    func plugin(_ runner: PluginRunner, pushesBack: Bool) {
        if pushesBack {
            log.limited(
                "plugin \(runner.name) pushes back", .notice,
                "plugin \(runner.name) has \(runner.spec.config.maxQueued) effects queued (maxQueued): the daemon takes "
                    + "no new events from clients, D-Bus or timers until it has drained",
                fields: LogFields(plugin: runner.name))
            backpressure.hold(for: runner)
        } else {
            backpressure.release(for: runner)
        }
    }

    func notifyWhenRoom(_ resume: @escaping () -> Void) {
        loop.whenRoom(resume)
    }
}
