import MobiusJSON
import MobiusSystem

/// One configured plugin on the reactor: starts it, speaks the protocol, supervises it (docs/protocol.md 2.2-2.5).
///
/// Lifecycle: `starting` (spawned, `initialize` sent, start timeout running) → `running` (effects and updates go
/// out) → on exit, crash or protocol violation every in-flight effect fails at once, update requests wait to be
/// sent again, and the plugin restarts after a backoff (`backoff`) unless it has used up `burst` starts within
/// `interval` (`failed`: its effects fail at once). A plugin that closes its stdout has ended too, running or not: its
/// process group is ended. A deliberate `stop` never respawns: `shutdown`, close stdin, SIGTERM to the process
/// group 2 s later, SIGKILL 2 s after that; it is done once no process of the plugin's groups is left.
final class PluginRunner {
    let spec: PluginSpec
    unowned let owner: any PluginRunnerOwner
    let reactor: Reactor
    let log: DaemonLog

    private(set) var state: PluginState = .stopped
    var channel: PluginChannel?
    var nextID: Int64 = 1
    var inFlight = PendingCalls()
    var effectsInFlight = 0
    /// Effects waiting for a free slot or for the plugin to be running again, oldest first.
    var waiting: [(effect: JSONValue, key: String)] = []
    var waitingHead = 0
    /// Update requests waiting to be sent (one is in flight at a time), oldest first.
    var updatesWaiting: [PluginUpdateCall] = []
    var updateInFlight = false
    /// The effect keys the running plugin announced.
    var keys: [String] = []
    /// Whether the plugin announced `update: true` / `batch: true`.
    var handlesUpdate = false
    var handlesBatch = false
    /// Whether the first start attempt has ended one way or the other (initialized, or failed to start).
    private(set) var hasSettled = false
    /// Whether a later start can help: false after a protocol-version mismatch or a routing conflict.
    var restartable = true
    /// Set before the process is killed for breaking the protocol, so in-flight effects fail with that code.
    var exitReason: (code: PluginFailure, message: String)?
    private var startTimes: [UInt64] = []
    private var startTimer: ReactorTimers.ID?
    private var restartTimer: ReactorTimers.ID?
    private var escalationTimers: [ReactorTimers.ID] = []
    /// The one timer that times out effects: armed at the earliest deadline of the effects in flight when it was
    /// set (see `armEffectSweep`). One per plugin instead of one per effect keeps an effect's cost O(1).
    var effectSweep: ReactorTimers.ID?
    private var stopRequested = false
    private var onStopped: (() -> Void)?
    /// Process groups of ended plugin processes with processes left in them, and who waits until there are none.
    private var groupsEnding = 0
    private var whenGroupsEnded: [() -> Void] = []
    var waitingForRoom = false
    /// Whether `waiting` has reached `maxQueued` and not yet drained to half of it: the daemon's edges wait.
    var pushingBack = false
    var stderrTail: [String] = []
    /// The versions of the plugin's program and of the arguments that name files (its script), as of its last
    /// start: a reload restarts an update plugin whose files changed.
    private(set) var startedFiles: [FileVersion?] = []
    /// Set by `restartNow`: the exit that follows is not a death of whatever update request is in flight.
    private var restartRequested = false
    /// Why the last start ended, for `--check` and `status`.
    private(set) var lastProblem: String?

    private(set) var restarts = 0
    var handled: UInt64 = 0
    var failed: UInt64 = 0
    var timedOut: UInt64 = 0

    static let stderrTailLines = 10
    static let escalationNanoseconds: UInt64 = 2_000_000_000
    /// How long a process whose stdout closed may take to end on its own: one that exits closes its descriptors a
    /// moment before it can be reaped.
    static let stdoutClosedGraceNanoseconds: UInt64 = 100_000_000
    /// How often a process group being ended is looked at, and how long it may take to go after SIGKILL.
    static let groupPollNanoseconds: UInt64 = 20_000_000
    static let afterKillNanoseconds: UInt64 = 1_000_000_000

    init(spec: PluginSpec, owner: any PluginRunnerOwner, reactor: Reactor, log: DaemonLog) {
        self.spec = spec
        self.owner = owner
        self.reactor = reactor
        self.log = log
    }

    var name: String { spec.name }

    // MARK: - Starting

    /// Spawns the plugin and sends `initialize`.
    func start() {
        guard !stopRequested else { return }
        let now = SystemProcess.monotonicNanoseconds()
        startTimes.append(now)
        exitReason = nil
        restartRequested = false
        keys = []
        stderrTail = []
        startedFiles = spec.files.map(FileSystem.version)
        let process: PipedProcess
        do {
            process = try PipedProcess.spawn(
                program: spec.program, arguments: spec.arguments, environment: spec.environment,
                credentials: spec.credentials)
        } catch {
            log.error("plugin \(name): cannot start \(spec.program): \(error)")
            ended(code: .pluginExited, message: "could not be started: \(error)")
            return
        }
        do {
            channel = try PluginChannel(process: process, reactor: reactor, maxLineBytes: spec.config.maxLineBytes) {
                [unowned self] event in channelEvent(event)
            }
        } catch {
            process.signalGroup(.kill)
            _ = try? ChildProcess(processID: process.processID).waitForExit()
            process.closeDescriptors()
            log.error("plugin \(name): cannot watch its pipes: \(error)")
            ended(code: .pluginExited, message: "could not be watched: \(error)")
            return
        }
        channel?.mayRead = { [unowned self] in mayReadEvents() }
        state = .starting
        log.info("plugin \(name): started \(spec.program) as pid \(process.processID)")
        let params = JSONValue.object([
            "protocol": 1,
            "host": .object(["name": "mobiusd", "version": .string(MobiusDaemon.version)]),
            "app": .string(appName),
            "plugin": .string(name),
            "options": spec.config.options,
        ])
        inFlight[0] = .initialize
        channel?.send(PluginMessage.request(id: 0, method: "initialize", params: params))
        startTimer = reactor.after(nanoseconds: Self.nanoseconds(spec.config.startTimeout)) { [unowned self] in
            startTimer = nil
            violation("did not answer initialize within \(spec.config.startTimeout) s")
        }
    }

    private var appName: String {
        spec.environment.first { $0.hasPrefix("MOBIUSD_APP=") }.map { String($0.dropFirst(12)) } ?? ""
    }

    /// The handshake finished: the plugin runs.
    func becameRunning() {
        if let startTimer { reactor.cancel(startTimer) }
        startTimer = nil
        channel?.send(PluginMessage.notification(method: "initialized"))
        state = .running
        hasSettled = true
        log.info(
            "plugin \(name): running; effects \(keys.isEmpty ? "none" : keys.joined(separator: ", "))"
                + (handlesUpdate ? "; update\(handlesBatch ? " (batch)" : "")" : ""))
        owner.pluginStateChanged(self)
        failUnroutableWaiting()
        pump()
    }

    /// Effects that waited through a restart for a key the plugin no longer announces.
    private func failUnroutableWaiting() {
        guard waitingHead < waiting.count else { return }
        let claimed = Set(keys)
        var kept: [(effect: JSONValue, key: String)] = []
        for item in waiting[waitingHead...] {
            if claimed.contains(item.key) {
                kept.append(item)
            } else {
                fail(item.effect, .unroutable, "plugin \(name) no longer handles \"\(item.key)\" after its restart")
            }
        }
        waiting = kept
        waitingHead = 0
    }

    // MARK: - Ending

    /// The plugin broke the protocol: logged with the offending line, then the process group is killed; the exit
    /// that follows fails in-flight effects with `ProtocolViolation` and restarts it.
    func violation(_ reason: String, line: ArraySlice<UInt8>? = nil) {
        guard let channel, exitReason == nil else { return }
        let shown = line.map { ": " + DaemonLog.text($0.prefix(256)) + ($0.count > 256 ? "…" : "") }
        log.limited("plugin \(name) violation", .error, "plugin \(name) broke the protocol (\(reason))\(shown ?? "")")
        exitReason = (.protocolViolation, reason)
        channel.process.signalGroup(.kill)
    }

    /// The plugin closed its stdout (`stdout`), or its stdin (`stdin`: a write met EPIPE). Unless it is exiting
    /// anyway (or being stopped, which ends it in its own time), that is the end of it: nothing reaches the host
    /// again, or nothing the host sends reaches it. Its process group gets SIGTERM, and SIGKILL 2 s later; the exit
    /// that follows fails its in-flight effects with `PluginExited` and restarts it.
    func pipeClosed(_ pipe: String) {
        guard let channel, exitReason == nil, !stopRequested else { return }
        let process = channel.process
        escalationTimers.append(
            reactor.after(nanoseconds: Self.stdoutClosedGraceNanoseconds) { [unowned self] in
                log.error("plugin \(name) closed its \(pipe) but is still running; ending its process group")
                exitReason = (.pluginExited, "closed its \(pipe) but kept running")
                process.signalGroup(.terminate)
                escalationTimers.append(
                    reactor.after(nanoseconds: Self.escalationNanoseconds) { [unowned self] in
                        log.warning("plugin \(name): ignored SIGTERM for 2 s; sending SIGKILL")
                        process.signalGroup(.kill)
                    })
            })
    }

    /// The process ended (reaped).
    func processExited(_ termination: ChildProcess.Termination) {
        guard let channel else { return }
        let process = channel.process
        channel.close()
        self.channel = nil
        if let startTimer { reactor.cancel(startTimer) }
        startTimer = nil
        for timer in escalationTimers { reactor.cancel(timer) }
        escalationTimers.removeAll()
        endGroup(process)
        if stopRequested {
            log.info("plugin \(name): stopped (\(termination))")
            failInFlight(.unavailable, "plugin \(name) was shut down")
            state = .stopped
            owner.pluginStateChanged(self)
            if let onStopped { afterGroupsEnded(onStopped) }
            onStopped = nil
            return
        }
        let reason = exitReason ?? (.pluginExited, "exited (\(termination))")
        let tail = stderrTail.isEmpty ? "" : "; its last stderr lines: " + stderrTail.joined(separator: " | ")
        log.error(
            "plugin \(name) \(reason.code == .pluginExited ? reason.message : "was ended: " + reason.message)\(tail)")
        ended(code: reason.code, message: "plugin \(name) \(reason.message)")
    }

    /// Ends what a gone process leaves: its in-flight effects fail, update requests wait to be resent; then
    /// restart after a backoff, or `failed`.
    private func ended(code: PluginFailure, message: String) {
        lastProblem = message
        failInFlight(code, message)
        hasSettled = true
        guard restartable else {
            markFailed("cannot be started as configured")
            return
        }
        let now = SystemProcess.monotonicNanoseconds()
        let window = Self.nanoseconds(spec.config.restart.interval)
        startTimes.removeAll { now - $0 > window }
        guard startTimes.count < spec.config.restart.burst else {
            markFailed(
                "\(startTimes.count) starts within \(spec.config.restart.interval) s (restart.burst \(spec.config.restart.burst))"
            )
            return
        }
        let exponent = Double(max(0, startTimes.count - 1))
        let delay = min(spec.config.restart.maxDelay, spec.config.restart.initialDelay * pow2(exponent))
        state = .backoff
        owner.pluginStateChanged(self)
        log.notice("plugin \(name): restarting in \(delay) s")
        restartTimer = reactor.after(nanoseconds: Self.nanoseconds(delay)) { [unowned self] in
            restartTimer = nil
            restarts += 1
            start()
        }
    }

    private func pow2(_ exponent: Double) -> Double {
        var value = 1.0
        for _ in 0..<Int(min(exponent, 60)) { value *= 2 }
        return value
    }

    private func markFailed(_ why: String) {
        state = .failed
        log.error("plugin \(name) failed: \(why); its effects now fail at once")
        failWaiting(.unavailable, "plugin \(name) has failed (\(why))")
        owner.pluginStateChanged(self)
    }

    /// Fails every in-flight effect and puts in-flight update requests back in the queue. An update request the
    /// plugin has now died on `crashesPerEvent` times is answered `crashed` instead (a poison event), and those
    /// deaths are taken off the restart budget: they are the event's doing, not the plugin's.
    private func failInFlight(_ code: PluginFailure, _ message: String) {
        let calls = inFlight.entries
        inFlight.removeAll()
        effectsInFlight = 0
        if let effectSweep { reactor.cancel(effectSweep) }
        effectSweep = nil
        var resend: [PluginUpdateCall] = []
        for (_, call) in calls {
            switch call {
            case .effect(let effect, _): fail(effect, code, message)
            case .update(let update):
                if !restartRequested { update.deaths += 1 }
                guard !stopRequested, update.deaths >= spec.config.crashesPerEvent else {
                    resend.append(update)
                    continue
                }
                startTimes.removeLast(min(update.deaths, startTimes.count))
                let stderr = stderrTail.last.map { "; its last stderr line: \($0)" } ?? ""
                log.warning("plugin \(name) died \(update.deaths) times on one \(update.method) request: \(message)")
                let crash = "the update plugin \(name) died on it \(update.deaths) times (\(message))\(stderr)"
                update.completion(.failure(.crashed(crash)))
            case .initialize, .shutdown: break
            }
        }
        updateInFlight = false
        updatesWaiting.insert(contentsOf: resend, at: 0)
    }

    /// Fails every effect and update request that waits in the host.
    func failWaiting(_ code: PluginFailure, _ message: String) {
        let effects = waiting[waitingHead...]
        waiting = []
        waitingHead = 0
        for item in effects { fail(item.effect, code, message) }
        let updates = updatesWaiting
        updatesWaiting = []
        for update in updates { update.completion(.failure(.unavailable(message))) }
        stopPushingBackIfDrained()
    }

    /// Ends what is left of an ended process's group (children it started): SIGTERM now, SIGKILL to what is left
    /// 2 s later; the group counts as ending until no process of it is left (or 1 s after the SIGKILL, for a
    /// process the kernel cannot end, in uninterruptible sleep).
    private func endGroup(_ process: PipedProcess) {
        guard process.groupExists, process.signalGroup(.terminate) else { return }
        groupsEnding += 1
        let start = SystemProcess.monotonicNanoseconds()
        Self.watchGroup(
            process, name: name, since: start, reactor: reactor, log: log,
            gone: { [weak self] in self?.groupEnded() })
    }

    /// Looks at `process`'s group every `groupPollNanoseconds` until it is gone, sending SIGKILL once
    /// `escalationNanoseconds` have passed `since`.
    private static func watchGroup(
        _ process: PipedProcess, name: String, since start: UInt64, reactor: Reactor, log: DaemonLog,
        killed: Bool = false, gone: @escaping () -> Void
    ) {
        reactor.after(nanoseconds: groupPollNanoseconds) {
            let elapsed = SystemProcess.monotonicNanoseconds() - start
            guard process.groupExists, elapsed < escalationNanoseconds + afterKillNanoseconds else {
                gone()
                return
            }
            if !killed && elapsed >= escalationNanoseconds {
                log.warning("plugin \(name): processes of its group ignored SIGTERM for 2 s; sending SIGKILL")
                process.signalGroup(.kill)
            }
            watchGroup(
                process, name: name, since: start, reactor: reactor, log: log,
                killed: killed || elapsed >= escalationNanoseconds, gone: gone)
        }
    }

    private func groupEnded() {
        groupsEnding -= 1
        guard groupsEnding == 0 else { return }
        let waiting = whenGroupsEnded
        whenGroupsEnded = []
        for done in waiting { done() }
    }

    /// Calls `done` once no process group of this plugin's is being ended.
    private func afterGroupsEnded(_ done: @escaping () -> Void) {
        if groupsEnding == 0 { done() } else { whenGroupsEnded.append(done) }
    }

    /// Restarts the plugin now and forgets its restart budget (`plugin {"restart":…}`, like `systemctl
    /// reset-failed`): a failed or waiting plugin starts at once; a running one is ended (SIGTERM to its group,
    /// SIGKILL 2 s later; its in-flight effects fail with `PluginExited`, as at any exit) and starts again after
    /// `restart.initialDelay`.
    func restartNow() {
        guard !stopRequested else { return }
        startTimes = []
        restartable = true
        if let restartTimer { reactor.cancel(restartTimer) }
        restartTimer = nil
        if let channel {
            exitReason = (.pluginExited, "was restarted on request")
            restartRequested = true
            let process = channel.process
            process.signalGroup(.terminate)
            escalationTimers.append(
                reactor.after(nanoseconds: Self.escalationNanoseconds) { [unowned self] in
                    log.warning("plugin \(name): ignored SIGTERM for 2 s on its restart; sending SIGKILL")
                    process.signalGroup(.kill)
                })
            return
        }
        restarts += 1
        start()
    }

    // MARK: - Stopping

    /// Shuts the plugin down for good (docs/protocol.md 2.2) and calls `done` once its process has ended.
    func stop(then done: @escaping () -> Void) {
        stopRequested = true
        if let restartTimer { reactor.cancel(restartTimer) }
        restartTimer = nil
        failWaiting(.unavailable, "plugin \(name) is shutting down")
        guard let channel else {
            if state != .failed { state = .stopped }
            afterGroupsEnded(done)
            return
        }
        onStopped = done
        if state == .running {
            let id = nextID
            nextID += 1
            inFlight[id] = .shutdown
            channel.send(PluginMessage.request(id: id, method: "shutdown", params: .object([:])))
            // A plugin that never answers `shutdown` gets its stdin closed anyway.
            escalationTimers.append(
                reactor.after(nanoseconds: Self.escalationNanoseconds) { [unowned self] in closeAndEscalate() })
        } else {
            closeAndEscalate()
        }
    }

    /// Closes stdin; SIGTERM to the group 2 s later, SIGKILL 2 s after that.
    func closeAndEscalate() {
        guard let channel, !channel.isClosed else { return }
        for timer in escalationTimers { reactor.cancel(timer) }
        escalationTimers.removeAll()
        channel.closeStdin()
        let process = channel.process
        escalationTimers.append(
            reactor.after(nanoseconds: Self.escalationNanoseconds) { [unowned self] in
                log.notice("plugin \(name): still running 2 s after its stdin closed; sending SIGTERM")
                process.signalGroup(.terminate)
                escalationTimers.append(
                    reactor.after(nanoseconds: Self.escalationNanoseconds) { [unowned self] in
                        log.warning("plugin \(name): ignored SIGTERM for 2 s; sending SIGKILL")
                        process.signalGroup(.kill)
                    })
            })
    }

    // MARK: - Status

    /// The plugin's `status` entry (docs/protocol.md 1.3).
    var statusJSON: JSONValue {
        .object([
            "state": .string(state.rawValue),
            "pid": channel.map { .number(JSONNumber(Int64($0.process.processID))) } ?? .null,
            "restarts": .number(JSONNumber(restarts)),
            "inFlight": .number(JSONNumber(effectsInFlight)),
            "queued": .number(JSONNumber(waiting.count - waitingHead)),
            "pushingBack": .bool(pushingBack),
            "handled": .number(JSONNumber(handled)),
            "failed": .number(JSONNumber(failed)),
            "timedOut": .number(JSONNumber(timedOut)),
            "effects": .array(keys.map { .string($0) }),
            "update": .bool(handlesUpdate),
        ])
    }

    static func nanoseconds(_ seconds: Double) -> UInt64 {
        UInt64(max(0, seconds) * 1e9)
    }
}
