import MobiusCore
import MobiusJSON
import MobiusSystem

/// The running daemon: one reactor thread with the control server and the loop on it, the log's writer thread, and
/// a worker thread for calls that may block (reading /proc). Built and run by `DaemonSetup.serve`.
final class DaemonRuntime<Model, Event, Effect> {
    let reactor: Reactor
    let loop: DaemonLoop<Model, Event, Effect>
    let server: ControlServer
    let log: DaemonLog
    let stats: DaemonStats
    let worker: BlockingWorker
    /// Parts that must finish before `READY=1` take a hold here while the runtime is built (see `ReadinessGate`).
    let readiness: ReadinessGate
    /// READY, STATUS, STOPPING, RELOADING and the watchdog (docs/systemd.md).
    let systemd: SystemdService
    /// Parts that follow a SIGHUP reload register here (see `ReloadRegistry`).
    let reloads = ReloadRegistry()
    /// The setup the daemon started with, which reloads compare against.
    private let setup: DaemonSetup<Model, Event, Effect>
    /// Handles SIGHUP and the `reload` command.
    private lazy var reloader = ConfigReloader(setup: setup, runtime: self)
    /// SIGTERM, SIGINT and SIGHUP, read by the reactor once `run` starts.
    private let signals: SignalFD
    private let dispatcher: EffectDispatcher<Model, Event, Effect>
    let plugins: PluginHost
    /// The durable state: the loop's commit hook, and the `state` member of `status`.
    let journal: DaemonJournal
    /// Past models (`model {"at":N}`, `log {"models":true}`), replayed from the journal off the reactor.
    let history: ModelHistory<Model, Event, Effect>
    /// How a pass's events get their outcomes when the app's update is a plugin.
    private let externalUpdate: ExternalUpdate<Model, Event, Effect>?
    /// Why start-up failed after the reactor began (a plugin routing conflict); the daemon then exits non-zero.
    private(set) var startProblem: String?
    private var stoppingPlugins = false
    private var stopping = false
    private var stopDeadline: UInt64 = .max
    /// Events from Swift effect handlers running on other threads (async routes, routes on a queue).
    private let effectInbox: EventInbox<Event>
    /// D-Bus sources and the buses of `mobiusd.dbus.*` effects, each on a thread of its own.
    let dbus: DBusSources
    /// The model as a D-Bus service (config `expose`), on a thread of its own; `nil` when not configured.
    let exposure: DBusExposure?

    /// Stack of the parse thread: JSON nests at most 512 levels, which the parser's recursion needs a few hundred
    /// KiB for.
    static var parserStackSize: Int { 4 << 20 }

    /// Capacity of the loop's queue; producers beyond it wait (backpressure).
    static var loopCapacity: Int { 65_536 }

    init(
        setup: DaemonSetup<Model, Event, Effect>, listener: FileDescriptor, signals: SignalFD, log: DaemonLog,
        stats: DaemonStats, journal: DaemonJournal
    ) throws(SystemError) {
        let app = setup.app
        let reactor = try Reactor()
        let worker = BlockingWorker(name: "mobiusd-worker")
        let parser = BlockingWorker(name: "mobiusd-parse", stackSize: Self.parserStackSize)
        let backpressure = EdgeBackpressure()
        let loop = DaemonLoop(
            app: app, capacity: Self.loopCapacity, backpressure: backpressure, stats: stats, log: log,
            epoch: journal.epoch, version: MobiusDaemon.version, commitHook: journal,
            requestAnotherRound: { [unowned reactor] in reactor.requestAnotherRound() },
            releaseElsewhere: { inputs in parser.submit { _ = inputs } })
        self.setup = setup
        self.journal = journal
        self.reactor = reactor
        self.loop = loop
        self.log = log
        self.stats = stats
        self.worker = worker
        let readiness = ReadinessGate()
        self.readiness = readiness
        let exposure = try setup.config.expose.map { config throws(SystemError) in
            try DBusExposure(
                config: config, loop: loop, epoch: journal.epoch, maxEventBytes: setup.settings.maxLineBytes,
                maxReplyBytes: setup.settings.maxOutputBytes, log: log, waker: reactor.waker, readiness: readiness)
        }
        self.exposure = exposure
        // The server carries the commands it is sent to this runtime's `perform` (see `ControlCommandRelay`).
        let commands = ControlCommandRelay()
        let server = try ControlServer(
            loop: loop.port, reactor: reactor, listener: listener, settings: setup.settings, log: log,
            parser: parser, logSource: journal, commands: commands, foreignReplies: exposure)
        self.server = server
        self.signals = signals
        let plugins = PluginHost(
            specs: setup.plugins, updatePlugin: app.updatePlugin, backpressure: backpressure, loop: loop.pluginPort,
            reactor: reactor, log: log)
        self.plugins = plugins
        // A replay of an update plugin's app starts a process of its own from the plugin's spec as it is then.
        let updatePluginSpec = app.updatePlugin.map { name in
            { [unowned plugins] () -> PluginSpec? in plugins.runner(named: name)?.spec }
        }
        history = ModelHistory(
            app: app, updatePluginSpec: updatePluginSpec, journal: journal, log: log, waker: reactor.waker)
        externalUpdate = app.updatePlugin.flatMap { name in plugins.runner(named: name) }.flatMap { runner in
            PluginUpdateDriver(runner: runner, log: log).externalUpdate as? ExternalUpdate<Model, Event, Effect>
        }
        let waker = reactor.waker
        let loopRef = UncheckedSendable(value: loop)
        let effectInbox = EventInbox<Event>(kind: .effect, capacity: 4096, policy: .block) {
            waker.post { loopRef.value.inboxHasItems() }
        }
        self.effectInbox = effectInbox
        let dbus = try DBusSources(sources: setup.config.dbus, loop: loop, stats: stats, log: log, waker: waker) {
            waker.post { loopRef.value.inboxHasItems() }
        }
        self.dbus = dbus
        let builtins = BuiltinEffects(log: log, reactor: reactor, dbus: DBusEffects(sources: dbus, log: log)) {
            [unowned loop] json in Self.deliverTimerEvent(json, to: loop, stats: stats, log: log)
        }
        let reactorThread = SystemThread.currentID
        dispatcher = EffectDispatcher(app: app, log: log, stats: stats, builtins: builtins, plugins: plugins) { event in
            // Synchronous Swift routes run inside the pass's dispatch on the reactor thread: they cannot wait, so
            // their events go straight to the queue (bounded by one pass's effects). Others go through the inbox.
            if SystemThread.currentID == reactorThread {
                loop.enqueue(.event(event, json: nil, source: .effect, ticket: nil))
            } else {
                effectInbox.post(event)
            }
        }
        systemd = SystemdService(reactor: reactor, log: log, app: app.name) { [unowned loop, unowned server] in
            SystemdService.Figures(seq: loop.state.seq, connections: server.connectionCount)
        }
        commands.runtime = self
        dbus.holdReadiness(readiness)
        reloads.register("dbus") { [unowned dbus] change in dbus.reload(change) }
        loop.attach(effectInbox) { event in .event(event, json: nil, source: .effect, ticket: nil) }
        registerPluginReload()
        reactor.atEndOfEachRound { [unowned self] in endOfRound() }
        // After the passes: what they sent plugins goes out in one write per plugin.
        reactor.atEndOfEachRound { [unowned plugins] in plugins.flushAll() }
    }

    /// A `mobiusd.after` timer fired: its event goes to the loop like any other, decoded by the app.
    private static func deliverTimerEvent(
        _ json: JSONValue, to loop: DaemonLoop<Model, Event, Effect>, stats: DaemonStats, log: DaemonLog
    ) {
        do {
            let event = try loop.decodeEvent(json)
            loop.enqueue(edge: .event(event, json: json, source: .timer, ticket: nil))
        } catch {
            stats.rejectedUndecodable(from: .timer)
            log.limited(
                "event rejected", .warning, "event from timer rejected: \(EventRejection.message(for: error))",
                fields: LogFields(source: EventSourceKind.timer.rawValue))
        }
    }

    private func registerPluginReload() {
        let loop = self.loop
        reloads.register("plugins") { [unowned self] change in
            // A config file's plugins only: the embedded app's bundled plugins have no file to reload.
            guard change.new.file != nil else { return nil }
            var specs: [PluginSpec] = []
            for (name, plugin) in change.new.plugins {
                do {
                    specs.append(try PluginSpec.resolve(name: name, plugin: plugin, app: loop.app.name))
                } catch {
                    return "not applied (\(error))"
                }
            }
            return plugins.reload(specs)
        }
    }

    /// Starts the plugins, then the loop once every plugin has settled its first start.
    private func startPluginsThenLoop() {
        // READY=1 waits until every plugin has settled its first start and the app's initiate has run.
        let hold = readiness.hold("plugins")
        plugins.start { [unowned self] problems in
            var problems = problems
            if let name = loop.app.updatePlugin, let runner = plugins.runner(named: name),
                runner.state == .running && !runner.handlesUpdate
            {
                problems.append("plugin \(name) is the app's update but did not answer \"update\": true")
            }
            guard problems.isEmpty else {
                startProblem = problems.joined(separator: "; ")
                stopping = true
                server.beginShutdown()
                stopPlugins()
                hold.release()
                return
            }
            let outlets = LoopOutlets(
                sink: server, dispatcher: dispatcher, externalUpdate: externalUpdate,
                statusMembers: { [unowned self] in statusMembers() }, observer: exposure)
            loop.start(outlets) { [unowned self] problem in
                if let problem {
                    // Serving the snapshot's model under the journal's seq would be a lie: exit non-zero instead,
                    // so that systemd's Restart= and the operator see it.
                    startProblem = problem
                    stopping = true
                    server.beginShutdown()
                    stopPlugins()
                    return
                }
                hold.release()
            }
        }
    }

    /// Shuts the plugins down once, then ends the reactor.
    private func stopPlugins() {
        guard !stoppingPlugins else { return }
        stoppingPlugins = true
        plugins.stop { [unowned reactor] in reactor.stop() }
    }

    /// Runs the reactor on the calling thread until shutdown has finished.
    func run() throws(SystemError) {
        let signalHandler = SignalHandler(signals: signals) { [unowned self] signal in handle(signal) }
        _ = try reactor.register(signals.fd, for: .readable, handler: signalHandler)
        startPluginsThenLoop()
        dbus.start()
        exposure?.start()
        systemd.start(readiness: readiness)
        readiness.open()
        try reactor.run()
        dbus.stop()
        exposure?.stop()
        systemd.finish()
        server.closeAll()
        dispatcher.dispose()
        effectInbox.close()
    }

    private func endOfRound() {
        loop.runPasses()
        if let trouble = loop.recoveryTrouble {
            systemd.startingStatus("recovery waits: \(trouble)")
        }
        server.continueHandOvers()
        // One clock read times the round's passes and stamps the control server's writes.
        var now: UInt64?
        if loop.metrics.hasEndedPasses {
            let time = SystemProcess.monotonicNanoseconds()
            loop.metrics.timeEndedPasses(now: time)
            now = time
        }
        server.endOfRound(now: now)
        systemd.endOfRound()
        // Writing can let a connection that waited for its output to drain hand the loop more requests: they are
        // applied in another round right away, not whenever the next descriptor happens to be ready.
        if loop.hasQueuedInputs && !loop.isCommitting { reactor.requestAnotherRound() }
        guard stopping else { return }
        let idle = !loop.hasQueuedInputs && !loop.isCommitting && server.batchesOut == 0 && server.finishedFlushing
        if idle || SystemProcess.monotonicNanoseconds() >= stopDeadline { stopPlugins() }
    }

    private func handle(_ signal: SignalFD.Signal) {
        switch signal {
        case .terminate, .interrupt:
            guard !stopping else { return }
            stopping = true
            systemd.beginStopping()
            history.stop()
            log.notice("\(signal == .terminate ? "SIGTERM" : "SIGINT"): shutting down")
            server.beginShutdown()
            exposure?.beginShutdown()
            let flushSeconds = server.settings.shutdownFlushSeconds
            stopDeadline = SystemProcess.monotonicNanoseconds() + UInt64(flushSeconds * 1e9)
            // Wakes the reactor at the deadline even if no client does.
            reactor.after(nanoseconds: UInt64(flushSeconds * 1e9)) {}
        case .hangUp:
            reloader.reload()
        case .windowChange:
            return  // not in the daemon's signalfd (DaemonSetup.serve)
        }
    }

    /// `status` members the loop does not own.
    private func statusMembers() -> [(String, JSONValue)] {
        refreshResidentSize()
        var members: [(String, JSONValue)] = [
            ("connections", .number(JSONNumber(server.connectionCount))),
            ("plugins", plugins.statusJSON),
            ("dbus", dbus.status),
        ]
        if let exposure { members.append(("expose", exposure.status)) }
        members.append(("rssBytes", .number(JSONNumber(stats.residentBytes.load(ordering: .relaxed)))))
        members.append(("state", journal.statusValue()))
        members.append(("history", history.statusValue()))
        return members
    }

    /// Asks the worker to sample RSS from /proc if the last sample is over a second old; `status` reports the
    /// latest sample, so reading /proc never holds up the loop.
    private func refreshResidentSize() {
        let now = SystemProcess.monotonicNanoseconds()
        let last = stats.residentSampleRequested.load(ordering: .relaxed)
        guard last == 0 || now - last >= 1_000_000_000 else { return }
        stats.residentSampleRequested.store(now, ordering: .relaxed)
        let stats = self.stats
        worker.submit { stats.residentBytes.store(SystemProcess.residentBytes(), ordering: .relaxed) }
    }

    /// Samples RSS now (at start, before serving, so the first `status` has a figure).
    func sampleResidentSize() {
        stats.residentBytes.store(SystemProcess.residentBytes(), ordering: .relaxed)
    }
}

extension DaemonRuntime: ControlCommandHandler {
    func perform(_ command: ControlCommand, line: Int, reply: @escaping ([UInt8]) -> Void) {
        switch command {
        case .reload:
            reloader.reload("reload command") { outcome in
                switch outcome {
                case .applied(let reloaded, let needRestart):
                    reply(
                        JSONLine.object([
                            ("ok", true), ("reloaded", .array(reloaded.map { .string($0) })),
                            ("needRestart", .array(needRestart.map { .string($0) })),
                        ]))
                case .refused(let error):
                    reply(
                        JSONLine.object([
                            ("ok", false),
                            (
                                "error",
                                .object([
                                    "code": .string(ErrorCode.invalidArgument.rawValue),
                                    "message": .string("reload refused, the running configuration is kept: \(error)"),
                                    "key": .string(error.key),
                                ])
                            ),
                            ("line", .number(JSONNumber(line))),
                        ]))
                }
            }
        case .metrics(let format):
            answerMetrics(format, reply: reply)
        case .modelAt(.line(let answer)):
            reply(answer)
        case .modelAt(.replay(let query)):
            history.modelAt(query, line: line, reply: reply)
        case .restartPlugin(let name):
            guard let runner = plugins.runner(named: name) else {
                reply(JSONLine.error(.invalidArgument, "no plugin named \"\(name)\"", line: line))
                return
            }
            guard !stopping else {
                reply(JSONLine.error(.shuttingDown, "the daemon is shutting down", line: line))
                return
            }
            log.notice("plugin \(name): restart requested on the control socket")
            runner.restartNow()
            let state = JSONValue.string(runner.state.rawValue)
            reply(JSONLine.object([("ok", true), ("plugin", .string(name)), ("state", state)]))
        }
    }
}
