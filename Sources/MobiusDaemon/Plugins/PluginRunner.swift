import MobiusJSON
import MobiusSystem

/// One configured plugin on the reactor: starts it, speaks the protocol, supervises it (docs/protocol.md 2.2-2.5).
///
/// Its lifecycle is a `PluginLifecycle`, whose transitions say what to do; this class does it: it spawns and
/// signals the process, arms the timers, and fails, queues or sends effects (`PluginEffectQueue`) and update
/// requests. On an exit, crash or protocol violation every in-flight effect fails at once, update requests wait to
/// be sent again, and the plugin restarts after a backoff unless `PluginRestartPolicy` gives up (`failed`: its
/// effects fail at once). An update request left unanswered for `updateTimeout` ends the plugin the same way. A plugin that closes its stdout has ended too, running or not: its process group is
/// ended. A deliberate `stop` never respawns: `shutdown`, close stdin, SIGTERM to the process group 2 s later,
/// SIGKILL 2 s after that; it is done once no process of the plugin's groups is left.
final class PluginRunner {
    let spec: PluginSpec
    private unowned let owner: any PluginRunnerOwner
    private let reactor: Reactor
    private let log: DaemonLog

    private var lifecycle: PluginLifecycle
    /// The live process's pipes, while there is one.
    private var channel: PluginChannel?
    /// Timers that signal the live process's group if it does not end by itself; cancelled at its exit.
    private var escalationTimers: [ReactorTimers.ID] = []
    private var nextID: Int64 = 1
    private var inFlight = PendingCalls()
    private var effects: PluginEffectQueue
    /// Update requests waiting to be sent (one is in flight at a time), oldest first.
    private var updatesWaiting: [PluginUpdateCall] = []
    /// The update request in flight (one at a time, so not among `inFlight`), and when it times out
    /// (`updateTimeout` after it was sent).
    private var updateInFlight: (id: Int64, call: PluginUpdateCall, deadline: UInt64)?
    /// The one timer that times out update requests (see `armUpdateWatch`).
    private var updateWatch: ReactorTimers.ID?
    /// The pending timers of the last start (`startTimeout`) and of the restart backoff.
    private var startTimer: ReactorTimers.ID?
    private var restartTimer: ReactorTimers.ID?
    /// The effect keys the running plugin announced.
    private var keys: [String] = []
    /// Whether the plugin announced `update: true` / `batch: true`.
    private(set) var handlesUpdate = false
    private(set) var handlesBatch = false
    /// The one timer that times out effects: armed at the earliest deadline of the effects in flight when it was
    /// set (see `armEffectSweep`). One per plugin instead of one per effect keeps an effect's cost O(1).
    private var effectSweep: ReactorTimers.ID?
    /// Process groups of ended plugin processes with processes left in them, and who waits until there are none.
    private var groupsEnding = 0
    private var whenGroupsEnded: [() -> Void] = []
    private var waitingForRoom = false
    private(set) var stderrTail: [String] = []
    /// The versions of the plugin's program and of the arguments that name files (its script), as of its last
    /// start: a reload restarts an update plugin whose files changed.
    private(set) var startedFiles: [FileVersion?] = []

    private var handled: UInt64 = 0
    private var failed: UInt64 = 0
    /// `failed` by why, for `metrics`.
    private var failures: [PluginFailure: UInt64] = [:]
    private var timedOut: UInt64 = 0

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
        lifecycle = PluginLifecycle(policy: PluginRestartPolicy(spec.config.restart))
        effects = PluginEffectQueue(concurrency: spec.config.concurrency, maxQueued: spec.config.maxQueued)
    }

    /// A runner a reload retired may go while its timers are pending: they capture it unowned (a weak reference
    /// would make every retain of the runner take the runtime's slow path) and are cancelled here.
    deinit {
        for timer in [startTimer, restartTimer, updateWatch, effectSweep].compactMap({ $0 }) + escalationTimers {
            reactor.cancel(timer)
        }
    }

    var name: String { spec.name }
    /// Where the plugin is in its life, as `status` names it.
    var state: PluginState { lifecycle.status }
    /// Whether the first start attempt has ended one way or the other (initialized, or failed to start).
    var hasSettled: Bool { lifecycle.hasSettled }
    /// Why the last start ended, for `--check` and `status`.
    var lastProblem: String? { lifecycle.lastProblem }

    /// Writes what the plugin's stdin has queued (`PluginHost.flushAll`).
    func flush() {
        channel?.flush()
    }

    // MARK: - Starting

    /// Spawns the plugin and sends `initialize`.
    func start() {
        let now = SystemProcess.monotonicNanoseconds()
        guard let attempt = lifecycle.start(now: now) else { return }
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
            spawnFailed("could not be started: \(error)")
            return
        }
        do {
            channel = try PluginChannel(
                process: process, reactor: reactor, maxLineBytes: spec.config.maxLineBytes,
                mayRead: { [unowned self] in mayReadEvents() },
                onEvent: { [unowned self] event in channelEvent(event) })
        } catch {
            process.signalGroup(.kill)
            _ = try? ChildProcess(processID: process.processID).waitForExit()
            process.closeDescriptors()
            log.error("plugin \(name): cannot watch its pipes: \(error)")
            spawnFailed("could not be watched: \(error)")
            return
        }
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
        // An earlier start's timer is moot (its attempt is over) and must not outlive the runner uncancelled.
        if let startTimer { reactor.cancel(startTimer) }
        startTimer = reactor.after(nanoseconds: Self.nanoseconds(spec.config.startTimeout)) { [unowned self] in
            startTimer = nil
            guard lifecycle.awaitsInitialize(attempt: attempt) else { return }
            violation("did not answer initialize within \(spec.config.startTimeout) s")
        }
    }

    private var appName: String {
        spec.environment.first { $0.hasPrefix("MOBIUSD_APP=") }.map { String($0.dropFirst(12)) } ?? ""
    }

    /// The handshake finished: the plugin runs.
    private func becameRunning() {
        guard lifecycle.initialized() else { return }
        channel?.send(PluginMessage.notification(method: "initialized"))
        log.info(
            "plugin \(name): running; effects \(keys.isEmpty ? "none" : keys.joined(separator: ", "))"
                + (handlesUpdate ? "; update\(handlesBatch ? " (batch)" : "")" : ""))
        owner.pluginStateChanged(self)
        failUnroutableWaiting()
        pump()
    }

    /// Effects that waited through a restart for a key the plugin no longer announces.
    private func failUnroutableWaiting() {
        for item in effects.keepOnly(keys: Set(keys)) {
            fail(item.effect, .unroutable, "plugin \(name) no longer handles \"\(item.key)\" after its restart")
        }
    }

    // MARK: - Ending

    /// The plugin broke the protocol: logged with the offending line, then the process group is killed; the exit
    /// that follows fails in-flight effects with `ProtocolViolation` and restarts it.
    func violation(_ reason: String, line: ArraySlice<UInt8>? = nil) {
        guard let channel, lifecycle.end(PluginLifecycle.Ending(code: .protocolViolation, message: reason)) else {
            return
        }
        let shown = line.map { ": " + DaemonLog.text($0.prefix(256)) + ($0.count > 256 ? "…" : "") }
        log.limited("plugin \(name) violation", .error, "plugin \(name) broke the protocol (\(reason))\(shown ?? "")")
        channel.process.signalGroup(.kill)
    }

    /// Kills the live process for a reason that is no protocol violation (`restartable: false`: no restart can fix
    /// it); its exit fails in-flight effects with `PluginExited`.
    private func kill(_ why: String, restartable: Bool = true) {
        let ending = PluginLifecycle.Ending(code: .pluginExited, message: why, restartable: restartable)
        guard lifecycle.end(ending) else { return }
        channel?.process.signalGroup(.kill)
    }

    /// The plugin closed its stdout (`stdout`), or its stdin (`stdin`: a write met EPIPE). Unless it is exiting
    /// anyway (or being stopped, which ends it in its own time), that is the end of it: nothing reaches the host
    /// again, or nothing the host sends reaches it. Its process group gets SIGTERM, and SIGKILL 2 s later; the exit
    /// that follows fails its in-flight effects with `PluginExited` and restarts it.
    private func pipeClosed(_ pipe: String) {
        guard let channel, lifecycle.endsOnClosedPipe else { return }
        let process = channel.process
        escalationTimers.append(
            reactor.after(nanoseconds: Self.stdoutClosedGraceNanoseconds) { [unowned self] in
                log.error("plugin \(name) closed its \(pipe) but is still running; ending its process group")
                _ = lifecycle.end(
                    PluginLifecycle.Ending(code: .pluginExited, message: "closed its \(pipe) but kept running"))
                terminateGroup(process)
            })
    }

    /// No answer to the update request `id` within `updateTimeout`: the plugin is ended as if it had crashed on it
    /// (SIGTERM to its process group, SIGKILL 2 s later). Its exit puts the request back for the restart, or, once
    /// the plugin has ended `crashesPerEvent` times on it, answers it `crashed` (docs/plugins.md, "Update plugins").
    private func updateTimedOut(_ id: Int64) {
        guard let (inFlightID, update, _) = updateInFlight, inFlightID == id, let process = channel?.process else {
            return
        }
        let why = "did not answer \(update.method) within \(spec.config.updateTimeout) s (updateTimeout)"
        guard lifecycle.end(PluginLifecycle.Ending(code: .pluginExited, message: why)) else { return }
        timedOut += 1
        log.error("plugin \(name) \(why); ending it as after a crash")
        terminateGroup(process)
    }

    /// SIGTERM to `process`'s group now, SIGKILL 2 s later unless it has exited by then (its exit cancels the
    /// timer). `occasion` says in the SIGKILL's log line what the SIGTERM was for.
    private func terminateGroup(_ process: PipedProcess, occasion: String = "") {
        process.signalGroup(.terminate)
        escalationTimers.append(
            reactor.after(nanoseconds: Self.escalationNanoseconds) { [unowned self] in
                log.warning("plugin \(name): ignored SIGTERM for 2 s\(occasion); sending SIGKILL")
                process.signalGroup(.kill)
            })
    }

    /// The process ended (reaped).
    private func processExited(_ termination: ChildProcess.Termination) {
        guard let channel, let exit = lifecycle.processExited(status: "\(termination)") else { return }
        let process = channel.process
        channel.close()
        self.channel = nil
        for timer in escalationTimers { reactor.cancel(timer) }
        escalationTimers.removeAll()
        endGroup(process)
        switch exit {
        case .stopped(let done):
            log.info("plugin \(name): stopped (\(termination))")
            failInFlight(.unavailable, "plugin \(name) was shut down", stopping: true, deathCounts: true)
            owner.pluginStateChanged(self)
            afterGroupsEnded(done)
        case .ended(let ending):
            let tail = stderrTail.isEmpty ? "" : "; its last stderr lines: " + stderrTail.joined(separator: " | ")
            log.error(
                "plugin \(name) \(ending.code == .pluginExited ? ending.message : "was ended: " + ending.message)\(tail)"
            )
            let forgiven = failInFlight(
                ending.code, "plugin \(name) \(ending.message)", stopping: false, deathCounts: !ending.requested)
            let now = SystemProcess.monotonicNanoseconds()
            perform(lifecycle.ended(restartable: ending.restartable, forgiving: forgiven, now: now))
        }
    }

    /// A start whose process could not be had: what waits for it stays, and it restarts after a backoff or fails.
    private func spawnFailed(_ problem: String) {
        let now = SystemProcess.monotonicNanoseconds()
        perform(lifecycle.spawnFailed(problem, now: now))
    }

    /// Restarts after a backoff, or marks the plugin `failed`.
    private func perform(_ after: PluginLifecycle.After) {
        switch after {
        case .restart(let delay, let attempt):
            owner.pluginStateChanged(self)
            log.notice("plugin \(name): restarting in \(delay) s")
            if let restartTimer { reactor.cancel(restartTimer) }
            restartTimer = reactor.after(nanoseconds: Self.nanoseconds(delay)) { [unowned self] in
                restartTimer = nil
                guard lifecycle.restartDue(attempt: attempt) else { return }
                start()
            }
        case .fail(let why):
            log.error("plugin \(name) failed: \(why); its effects now fail at once")
            failWaiting(.unavailable, "plugin \(name) has failed (\(why))")
            owner.pluginStateChanged(self)
        }
    }

    /// Fails every in-flight effect and puts in-flight update requests back in the queue. An update request the
    /// plugin has now died on `crashesPerEvent` times is answered `crashed` instead (a poison event); returns those
    /// deaths, which come off the restart budget: they are the event's doing, not the plugin's. `deathCounts`:
    /// whether this end counts as a death of the update request in flight (not after `restartNow`).
    @discardableResult
    private func failInFlight(_ code: PluginFailure, _ message: String, stopping: Bool, deathCounts: Bool) -> Int {
        let calls = inFlight.entries
        inFlight.removeAll()
        effects.finishedAll()
        if let effectSweep { reactor.cancel(effectSweep) }
        effectSweep = nil
        for (_, call) in calls {
            if case .effect(let effect, _) = call { fail(effect, code, message) }
        }
        guard let update = updateInFlight?.call else { return 0 }
        updateInFlight = nil
        if deathCounts { update.deaths += 1 }
        guard !stopping, update.deaths >= spec.config.crashesPerEvent else {
            updatesWaiting.insert(update, at: 0)
            return 0
        }
        let stderr = stderrTail.last.map { "; its last stderr line: \($0)" } ?? ""
        log.warning("plugin \(name) died \(update.deaths) times on one \(update.method) request: \(message)")
        let crash = "the update plugin \(name) died on it \(update.deaths) times (\(message))\(stderr)"
        update.completion(.failure(.crashed(crash)))
        return update.deaths
    }

    /// Fails every effect and update request that waits in the host.
    private func failWaiting(_ code: PluginFailure, _ message: String) {
        for effect in effects.removeAll() { fail(effect, code, message) }
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
        switch lifecycle.restartNow() {
        case .none:
            return
        case .start:
            start()
        case .terminate:
            guard let process = channel?.process else { return }
            terminateGroup(process, occasion: " on its restart")
        }
    }

    // MARK: - Stopping

    /// Shuts the plugin down for good (docs/protocol.md 2.2) and calls `done` once its process has ended.
    func stop(then done: @escaping () -> Void) {
        let stop = lifecycle.stop(then: done)
        failWaiting(.unavailable, "plugin \(name) is shutting down")
        switch stop {
        case .finished(let done):
            afterGroupsEnded(done)
        case .shutDown:
            let id = nextID
            nextID += 1
            inFlight[id] = .shutdown
            channel?.send(PluginMessage.request(id: id, method: "shutdown", params: .object([:])))
            // A plugin that never answers `shutdown` gets its stdin closed anyway.
            escalationTimers.append(
                reactor.after(nanoseconds: Self.escalationNanoseconds) { [unowned self] in closeAndEscalate() })
        case .closeStdin:
            closeAndEscalate()
        }
    }

    /// Closes stdin; SIGTERM to the group 2 s later, SIGKILL 2 s after that.
    private func closeAndEscalate() {
        guard let channel, !channel.isClosed else { return }
        for timer in escalationTimers { reactor.cancel(timer) }
        escalationTimers.removeAll()
        channel.closeStdin()
        let process = channel.process
        escalationTimers.append(
            reactor.after(nanoseconds: Self.escalationNanoseconds) { [unowned self] in
                log.notice("plugin \(name): still running 2 s after its stdin closed; sending SIGTERM")
                terminateGroup(process)
            })
    }

    // MARK: - Status

    /// The plugin's `status` entry (docs/protocol.md 1.3).
    var statusJSON: JSONValue {
        .object([
            "state": .string(state.rawValue),
            "pid": channel.map { .number(JSONNumber(Int64($0.process.processID))) } ?? .null,
            "restarts": .number(JSONNumber(lifecycle.restarts)),
            "inFlight": .number(JSONNumber(effects.inFlight)),
            "queued": .number(JSONNumber(effects.count)),
            "pushingBack": .bool(effects.pushingBack),
            "handled": .number(JSONNumber(handled)),
            "failed": .number(JSONNumber(failed)),
            "timedOut": .number(JSONNumber(timedOut)),
            "effects": .array(keys.map { .string($0) }),
            "update": .bool(handlesUpdate),
        ])
    }

    /// The plugin's figures for `metrics`.
    var metricsSample: PluginSample {
        PluginSample(
            name: name, state: state, inFlight: effects.inFlight, queued: effects.count, handled: handled,
            failures: failures, restarts: UInt64(lifecycle.restarts))
    }

    private static func nanoseconds(_ seconds: Double) -> UInt64 {
        PluginRestartPolicy.nanoseconds(seconds)
    }

    /// A response's outcome.
    private enum Answer {
        case result(JSONValue)
        case error(String)
    }

    // MARK: - From the plugin

    private func channelEvent(_ event: PluginChannel.Event) {
        switch event {
        case .line(let bytes):
            receive(bytes)
        case .oversized(let prefix):
            violation("a stdout line over maxLineBytes (\(spec.config.maxLineBytes) bytes)", line: prefix[...])
        case .stderrLine(let line):
            stderrLine(line)
        case .stdoutClosed:
            pipeClosed("stdout")
        case .stdinBroken:
            pipeClosed("stdin")
        case .exited(let termination):
            processExited(termination)
        }
    }

    private func receive(_ bytes: ArraySlice<UInt8>) {
        guard lifecycle.live?.ending == nil else { return }
        if let (id, result) = PluginMessage.compactResult(bytes) {
            answered(id, .result(result), line: bytes)
            return
        }
        let value: JSONValue
        do {
            value = try JSONValue(parsing: bytes)
        } catch {
            violation("not JSON: \(error)", line: bytes)
            return
        }
        let message: PluginMessage
        do {
            message = try PluginMessage(value)
        } catch {
            violation("not a JSON-RPC 2.0 message: \(error)", line: bytes)
            return
        }
        switch message {
        case .notification(let method, let params): notification(method, params, line: bytes)
        case .result(let id, let result): answered(id, .result(result), line: bytes)
        case .error(let id, _, let text): answered(id, .error(text), line: bytes)
        }
    }

    private func notification(_ method: String, _ params: JSONValue, line: ArraySlice<UInt8>) {
        switch method {
        case "event":
            guard let event = params["event"] else {
                violation("an \"event\" notification without \"event\"", line: line)
                return
            }
            if let id = params["id"] {
                guard let number = id.int64Value else {
                    violation("an \"event\" notification whose \"id\" is not an integer", line: line)
                    return
                }
                // Events for an effect that has ended (cancelled, timed out) are dropped, as docs/protocol.md 2.3 says.
                guard case .effect? = inFlight[number] else { return }
            } else {
                guard lifecycle.status == .running else {
                    violation("an event before \"initialized\"", line: line)
                    return
                }
            }
            owner.plugin(self, sent: event)
        case "progress":
            guard let id = params["id"]?.int64Value else {
                violation("a \"progress\" notification without an integer \"id\"", line: line)
                return
            }
            guard case .effect(let effect, _)? = inFlight[id] else { return }
            inFlight[id] = .effect(effect: effect, deadline: Self.deadline(after: spec.config.timeout))
        default:
            log.limited(
                "plugin \(name) unknown notification", .warning,
                "plugin \(name): ignored a notification with unknown method \"\(method)\"")
        }
    }

    private func answered(_ id: Int64, _ outcome: Answer, line: ArraySlice<UInt8>) {
        if let (updateID, update, _) = updateInFlight, updateID == id {
            updateInFlight = nil
            switch outcome {
            case .result(let result): update.completion(.success(result))
            case .error(let text): update.completion(.failure(.rejected(text)))
            }
            pump()
            return
        }
        guard let call = inFlight.removeValue(forKey: id) else {
            // Late answers to cancelled or timed-out effects land here; anything else is a plugin's mistake.
            if id >= nextID {
                violation("an answer to request \(id), which the host never sent", line: line)
            }
            return
        }
        switch call {
        case .initialize:
            switch outcome {
            case .result(let result): handshake(result, line: line)
            case .error(let text):
                log.error("plugin \(name): initialize failed: \(text)")
                kill("refused initialize: \(text)")
            }
        case .effect(let effect, _):
            effects.finished()
            switch outcome {
            case .result(let result):
                if let events = result["events"] {
                    guard case .array(let list) = events else {
                        // Out of `inFlight` already, so the violation's ending would not fail it: fail it here.
                        fail(effect, .protocolViolation, "plugin \(name): \"result.events\" is not an array")
                        violation("\"result.events\" is not an array", line: line)
                        return
                    }
                    for event in list { owner.plugin(self, sent: event) }
                }
                handled += 1
            case .error(let text):
                fail(effect, .pluginError, "plugin \(name): \(text)")
            }
            pump()
        case .shutdown:
            closeAndEscalate()
        }
    }

    private func handshake(_ result: JSONValue, line: ArraySlice<UInt8>) {
        let version = result["protocol"]
        guard version?.int64Value == 1 else {
            let theirs = version.map { String(decoding: $0.encoded(), as: UTF8.self) } ?? "none"
            log.error("plugin \(name) speaks protocol \(theirs); this mobiusd speaks protocol 1")
            kill("speaks protocol \(theirs), not 1", restartable: false)
            return
        }
        var announced: [String] = []
        if let effects = result["effects"] {
            guard case .array(let list) = effects, list.allSatisfy({ $0.stringValue != nil }) else {
                violation("\"effects\" in the initialize result is not an array of strings", line: line)
                return
            }
            announced = list.compactMap(\.stringValue)
        }
        if let reserved = announced.first(where: { $0.hasPrefix("mobiusd.") }) {
            log.error("plugin \(name) claims \"\(reserved)\"; keys starting with mobiusd. are the daemon's own")
            kill("claims the reserved key \"\(reserved)\"", restartable: false)
            return
        }
        handlesUpdate = result["update"]?.boolValue ?? false
        handlesBatch = handlesUpdate && (result["batch"]?.boolValue ?? false)
        if let conflict = owner.plugin(self, announces: announced) {
            log.error("plugin \(name): \(conflict)")
            kill(conflict, restartable: false)
            return
        }
        keys = announced
        becameRunning()
    }

    private func stderrLine(_ line: String) {
        var level = DaemonLog.Level.info
        var text = Substring(line)
        if text.count >= 3, text.hasPrefix("<"), let digit = text.dropFirst().first?.wholeNumberValue,
            text.dropFirst(2).first == ">"
        {
            text = text.dropFirst(3)
            level = DaemonLog.Level(rawValue: max(3, min(7, digit))) ?? .error
        }
        if stderrTail.count == Self.stderrTailLines { stderrTail.removeFirst() }
        stderrTail.append(String(text.prefix(512)))
        log.limited("plugin \(name) stderr", level, "plugin \(name): \(text)", fields: LogFields(plugin: name))
    }

    /// Whether stdout may be read now; if not, asks the loop to say when it has room.
    private func mayReadEvents() -> Bool {
        if owner.mayDeliverEvents(from: self) { return true }
        if !waitingForRoom {
            waitingForRoom = true
            owner.notifyWhenRoom { [weak self] in
                guard let self else { return }
                waitingForRoom = false
                channel?.resumeReading()
            }
        }
        return false
    }

    // MARK: - Effects

    /// Sends `effect` (routing key `key`) now or queues it; fails it at once only when the plugin is `failed` or
    /// stopped. A queue that reaches `maxQueued` pushes back on the daemon's edges instead of failing what comes.
    func submit(_ effect: JSONValue, key: String) {
        let state = state
        if state == .failed || state == .stopped {
            fail(effect, .unavailable, "plugin \(name) is \(state.rawValue)")
            return
        }
        switch effects.submit(effect, key: key, running: state == .running) {
        case .send: send(effect)
        case .queued: break
        case .queuedPushingBack: owner.plugin(self, pushesBack: true)
        }
    }

    /// Lets the edges go once the queue has drained to half of `maxQueued`.
    private func stopPushingBackIfDrained() {
        if effects.stopPushingBackIfDrained() { owner.plugin(self, pushesBack: false) }
    }

    /// Sends what waits, as far as `concurrency` allows, and the next update request.
    private func pump() {
        guard state == .running, channel != nil else { return }
        while let effect = effects.next() { send(effect) }
        stopPushingBackIfDrained()
        if updateInFlight == nil, !updatesWaiting.isEmpty {
            let update = updatesWaiting.removeFirst()
            let id = nextID
            nextID += 1
            let deadline = Self.deadline(after: spec.config.updateTimeout)
            updateInFlight = (id: id, call: update, deadline: deadline)
            if updateWatch == nil { armUpdateWatch(at: deadline) }
            channel?.send(PluginMessage.request(id: id, method: update.method, encodedParams: update.params))
        }
    }

    /// Sends `effect`, or fails it with `Unavailable` when its request line would be longer than the plugin's
    /// `maxLineBytes` (the plugin could not read it, and would be restarted over it).
    private func send(_ effect: JSONValue) {
        let id = nextID
        let limit = spec.config.maxLineBytes
        var fits = true
        channel?.send { buffer in
            let start = buffer.count
            PluginMessage.appendEffectRequest(id: id, effect: effect, to: &buffer)
            if buffer.count - start - 1 > limit {
                buffer.removeSubrange(start...)
                fits = false
            }
        }
        guard fits else {
            fail(effect, .unavailable, "the effect does not fit in one line to plugin \(name) (maxLineBytes \(limit))")
            return
        }
        nextID += 1
        let deadline = Self.deadline(after: spec.config.timeout)
        inFlight[id] = .effect(effect: effect, deadline: deadline)
        effects.sent()
        if effectSweep == nil { armEffectSweep(at: deadline) }
    }

    /// When a request sent or progressed now times out, `seconds` from now.
    private static func deadline(after seconds: Double) -> UInt64 {
        let (deadline, overflow) = SystemProcess.monotonicNanoseconds().addingReportingOverflow(nanoseconds(seconds))
        return overflow ? .max : deadline
    }

    /// Arms the update watch at `deadline`. Update requests go one at a time with the same timeout, so the watch,
    /// once armed at the deadline of the request then in flight, is never late for a later one. It is not cancelled
    /// when that request is answered: it then re-arms at the deadline of the one in flight, if any, so with a
    /// steady stream of requests it fires about once per `updateTimeout` instead of being set and cancelled for each.
    private func armUpdateWatch(at deadline: UInt64) {
        let now = SystemProcess.monotonicNanoseconds()
        updateWatch = reactor.after(nanoseconds: deadline > now ? deadline - now : 0) { [unowned self] in
            updateWatch = nil
            guard let (id, _, deadline) = updateInFlight else { return }
            if deadline <= SystemProcess.monotonicNanoseconds() {
                updateTimedOut(id)
            } else {
                armUpdateWatch(at: deadline)
            }
        }
    }

    /// Arms the sweep at `deadline`. Every effect has the same timeout and `progress` only moves a deadline later,
    /// so the sweep, once armed at the earliest deadline, is never late: effects sent after it was armed time out
    /// later. It may fire early (that effect was answered): it then re-arms at the earliest deadline left, so with
    /// a steady stream of effects it fires about once per timeout.
    private func armEffectSweep(at deadline: UInt64) {
        let now = SystemProcess.monotonicNanoseconds()
        effectSweep = reactor.after(nanoseconds: deadline > now ? deadline - now : 0) { [unowned self] in
            effectSweep = nil
            sweepEffects()
        }
    }

    /// Times out every effect past its deadline (oldest first), then re-arms at the earliest deadline left.
    private func sweepEffects() {
        let now = SystemProcess.monotonicNanoseconds()
        var expired: [Int64] = []
        var earliest = UInt64.max
        for (id, call) in inFlight.entries {
            guard case .effect(_, let deadline) = call else { continue }
            if deadline <= now { expired.append(id) } else { earliest = min(earliest, deadline) }
        }
        for id in expired.sorted() {
            guard case .effect(let effect, _)? = inFlight.removeValue(forKey: id) else { continue }
            effects.finished()
            timedOut += 1
            channel?.send(
                PluginMessage.notification(method: "cancel", params: .object(["id": .number(JSONNumber(id))])))
            fail(effect, .timeout, "plugin \(name) made no progress on it within \(spec.config.timeout) s")
        }
        if earliest != .max, effectSweep == nil { armEffectSweep(at: earliest) }
        if !expired.isEmpty { pump() }
    }

    /// Counts and reports a failed effect.
    private func fail(_ effect: JSONValue, _ code: PluginFailure, _ message: String) {
        failed += 1
        failures[code, default: 0] += 1
        owner.plugin(self, failed: effect, code: code, message: message)
    }

    // MARK: - Updates

    /// Sends `init`, `update` or `updateBatch`; `completion` gets the result. One is in flight at a time, in
    /// order; one in flight when the plugin dies is sent again after its restart.
    func call(
        _ method: String, params: [UInt8], completion: @escaping (Result<JSONValue, PluginUpdateCall.Failure>) -> Void
    ) {
        let update = PluginUpdateCall(method: method, params: params, completion: completion)
        switch state {
        case .failed, .stopped:
            completion(.failure(.unavailable("the update plugin \(name) is \(state.rawValue)")))
        default:
            updatesWaiting.append(update)
            pump()
        }
    }
}
