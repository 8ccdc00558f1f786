import MobiusCore
import MobiusJSON
import MobiusSystem

/// Past models, computed off the reactor (docs/durability.md, "The model at any seq"): the answers to
/// `model {"at":N}` and the models of `log {"models":true}` streams behind the head.
///
/// Replays run on the history thread, one at a time, in the order asked. A replay from a base (a snapshot, or the
/// initial model) costs up to a snapshot interval of events, so at most `maxPendingReplays` of them may be running or
/// waiting; past that a request is answered `Overloaded`. A stream's later chunks go on from the model it last sent
/// and are bounded by the stream's output, so they do not count. A replay that takes more than a second is logged
/// every few seconds and shown in `status` (`history`). At shutdown a replay under way stops at its next event.
///
/// Threads: the methods run on the reactor thread; the replays on "mobiusd-history", which posts each answer back
/// through the reactor's waker.
final class ModelHistory<Model, Event, Effect>: PastModelReader {
    private let app: DaemonApp<Model, Event, Effect>
    /// The update plugin's spec as configured now (a `reload` may change it), when the app's update is a plugin:
    /// a replay starts a process of its own from it.
    private let updatePluginSpec: (() -> PluginSpec?)?
    /// The journal this history reads (its catalog, directory and epoch); it outlives the history.
    private unowned let journal: DaemonJournal
    private let log: DaemonLog
    private let waker: ReactorWaker
    /// The app's update runs here as on the reactor, so it gets the reactor's stack (only touched pages are resident);
    /// niced, so that a long replay takes the CPU the reactor leaves rather than its share.
    private let thread = BlockingWorker(name: "mobiusd-history", stackSize: 16 << 20, nice: 10)
    private let stopped = StopFlag()
    /// Replays from a base submitted and not yet answered (reactor thread).
    private var pendingReplays = 0
    /// The replay the history thread is running, for `status`.
    private let running = ReplayActivity()

    /// Replays from a base that may be running or waiting at once.
    static var maxPendingReplays: Int { 4 }

    /// - Parameter updatePluginSpec: the update plugin's spec now; `nil` when the app's update is its own.
    init(
        app: DaemonApp<Model, Event, Effect>, updatePluginSpec: (() -> PluginSpec?)?, journal: DaemonJournal,
        log: DaemonLog, waker: ReactorWaker
    ) {
        self.app = app
        self.updatePluginSpec = updatePluginSpec
        self.journal = journal
        self.log = log
        self.waker = waker
    }

    /// Why no past model can be had at all now, if so.
    private var refusal: HistoryProblem? {
        if stopped.isRaised { return .unavailable(.shuttingDown, "the daemon is shutting down") }
        if journal.isEphemeral {
            return .unavailable(
                .unavailable, "this daemon keeps no snapshots (--ephemeral): only the model at the last seq is served")
        }
        return nil
    }

    /// The replay engine over the journal as it is now; `nil` before recovery has made the catalog.
    private var replay: HistoryReplay<Model, Event, Effect>? {
        guard let catalog = journal.catalog, let directory = journal.directory else { return nil }
        return HistoryReplay(
            app: app, catalog: catalog, directory: directory.path, epoch: journal.epoch, stopped: stopped)
    }

    /// Takes a place for a replay from a base, or says why there is none.
    private func admitReplay() -> HistoryProblem? {
        guard pendingReplays < Self.maxPendingReplays else {
            return .overloaded(
                "\(pendingReplays) replays of past models are already running or waiting (the history thread takes "
                    + "one at a time, at most \(Self.maxPendingReplays) may wait); try again later")
        }
        pendingReplays += 1
        return nil
    }

    /// Answers `model {"at":N}` for an N before the head (line `line` of its connection): `reply` gets the reply line
    /// on the reactor thread, the model or the error that says why not.
    func modelAt(_ query: HistoryQuery, line: Int, reply: @escaping ([UInt8]) -> Void) {
        if let problem = refusal ?? admitReplay() {
            reply(problem.reply(at: query.at, line: line))
            return
        }
        let plugin = updatePluginSpec?()
        if updatePluginSpec != nil && plugin == nil {
            pendingReplays -= 1
            let problem = HistoryProblem.unavailable(.unavailable, "the update plugin is not configured")
            reply(problem.reply(at: query.at, line: line))
            return
        }
        guard let replay else {
            pendingReplays -= 1
            reply(HistoryProblem.compacted(firstSeq: nil).reply(at: query.at, line: line))
            return
        }
        let (running, log) = (self.running, self.log)
        let answered = UncheckedSendable(value: (history: self, reply: reply))
        let waker = self.waker
        thread.submit {
            let line = Self.model(at: query, line: line, replay: replay, plugin: plugin, running: running, log: log)
            waker.post {
                answered.value.history.pendingReplays -= 1
                answered.value.reply(line)
            }
        }
    }

    /// `log {"models":true}` items for `from...through` (about `maxBytes`), read on the history thread: replayed
    /// from `after`, the model right after `from - 1` that the stream last sent, or (`nil`) from the newest base
    /// before `from`. `done` gets the chunk on the reactor thread.
    func readModelLines(
        from: UInt64, through: UInt64, maxBytes: Int, cursor: JournalReader.Cursor?, after: JSONValue?,
        done: @escaping (JournalReader.Chunk) -> Void
    ) {
        if journal.isEphemeral {
            // Only the window in memory: what is not there is gone, as for `log` itself.
            done(JournalReader.Chunk(next: from, vanished: true))
            return
        }
        let counts = after == nil
        let pluginRefusal = updatePluginSpec.map { _ in
            HistoryProblem.unavailable(.unavailable, HistoryProblem.updatePluginReason)
        }
        if let problem = refusal ?? pluginRefusal ?? (counts ? admitReplay() : nil) {
            done(Self.chunk(next: from, problem))
            return
        }
        guard let replay else {
            if counts { pendingReplays -= 1 }
            done(JournalReader.Chunk(next: from, vanished: true))
            return
        }
        let (running, log) = (self.running, self.log)
        let finished = UncheckedSendable(value: (history: self, done: done))
        let waker = self.waker
        thread.submit {
            let chunk = Self.modelLines(
                from: from, through: through, maxBytes: maxBytes, cursor: cursor, after: after, replay: replay,
                running: running, log: log)
            waker.post {
                if counts { finished.value.history.pendingReplays -= 1 }
                finished.value.done(chunk)
            }
        }
    }

    /// The `history` member of `status`: the replay running (`null` when none) and how many wait.
    func statusValue() -> JSONValue {
        let now = running.running
        var members: [(String, JSONValue)] = [("pending", .number(JSONNumber(pendingReplays)))]
        if let now {
            let seconds = Double(SystemProcess.monotonicNanoseconds() - now.started) / 1e9
            members.append(
                (
                    "running",
                    .object(
                        JSONObject([
                            ("request", .string(now.request)), ("seq", .number(JSONNumber(now.target))),
                            ("from", .number(JSONNumber(now.base))), ("done", .number(JSONNumber(now.progress.done))),
                            ("of", .number(JSONNumber(max(now.progress.done, now.progress.total)))),
                            ("seconds", .number(JSONNumber((seconds * 10).rounded() / 10) ?? JSONNumber(0))),
                        ]))
                ))
        } else {
            members.append(("running", .null))
        }
        return .object(JSONObject(members))
    }

    // MARK: - On the history thread

    /// The reply to `model {"at":N}`: the replay from the newest base at or before N.
    private static func model(
        at query: HistoryQuery, line: Int, replay: HistoryReplay<Model, Event, Effect>, plugin: PluginSpec?,
        running: ReplayActivity, log: DaemonLog
    ) -> [UInt8] {
        let model: Model
        switch replayed(to: query.at, request: "model", replay: replay, plugin: plugin, running: running, log: log) {
        case .success(let replayed): model = replayed
        case .failure(let problem): return problem.reply(at: query.at, line: line)
        }
        guard let json = try? replay.app.codec.encodeModel(model) else {
            return JSONLine.error(.internal, "the app could not encode its model at seq \(query.at)", line: line)
        }
        return LoopLines.model(seq: query.at, model: query.path.map { $0.value(in: json) ?? .null } ?? json)
    }

    /// The items of a `log {"models":true}` stream for `from...through`, with the model after each.
    private static func modelLines(
        from: UInt64, through: UInt64, maxBytes: Int, cursor: JournalReader.Cursor?, after: JSONValue?,
        replay: HistoryReplay<Model, Event, Effect>, running: ReplayActivity, log: DaemonLog
    ) -> JournalReader.Chunk {
        var model: Model
        var cursor = cursor
        if let after {
            do {
                model = try replay.app.codec.decodeModel(after)
            } catch {
                return chunk(next: from, .unavailable(.internal, "the app cannot read back its model: \(error)"))
            }
        } else {
            switch replayed(to: from - 1, request: "log", replay: replay, running: running, log: log) {
            case .success(let start): model = start
            case .failure(let problem): return chunk(next: from, problem)
            }
            cursor = nil
        }
        var rejections = HistoryReplay<Model, Event, Effect>.Rejections()
        var invalid: UInt64?
        var last: JSONValue?
        var result = replay.replay(
            &model, from: from, through: through, maxBytes: maxBytes, cursor: cursor, progress: nil,
            rejections: &rejections, invalid: &invalid
        ) { record, model, lines in
            // A model the live loop could encode encodes here too; `null` only if the app changed since.
            let json = (try? replay.app.codec.encodeModel(model)) ?? .null
            LogLine.append(record, model: json, to: &lines)
            last = json
        }
        noteRejections(rejections, what: "log with models from seq \(from)", log: log)
        if invalid != nil || replay.stopped.isRaised,
            let problem = replay.shortfall(result, target: through, invalid: invalid)
        {
            var stopped = chunk(next: result.next, problem)
            stopped.lines = result.lines
            return stopped
        }
        result.model = last ?? (try? replay.app.codec.encodeModel(model))
        return result
    }

    /// The model right after `target`, replayed from the newest base at or before it (through a process of the
    /// update plugin `plugin` of its own, when given); reported while it runs.
    private static func replayed(
        to target: UInt64, request: String, replay: HistoryReplay<Model, Event, Effect>, plugin: PluginSpec? = nil,
        running: ReplayActivity, log: DaemonLog
    ) -> Result<Model, HistoryProblem> {
        let base: (seq: UInt64, model: Model)
        switch replay.base(for: target) {
        case .success(let found): base = found
        case .failure(let problem): return .failure(problem)
        }
        var model = base.model
        let progress = ReplayProgress(total: Int(clamping: target - base.seq))
        let started = SystemProcess.monotonicNanoseconds()
        running.begin(
            ReplayActivity.Running(
                request: request, target: target, base: base.seq, progress: progress, started: started))
        defer { running.end() }
        let what =
            "\(request) at seq \(target): replaying from "
            + (base.seq == 0 ? "the start of the history" : "the snapshot at seq \(base.seq)")
        let ticker = ProgressTicker(name: "mobiusd-hprogress") { elapsed in
            log.info("\(what): \(progress.summary) after \(ProgressPace.seconds(elapsed))")
        }
        var rejections = HistoryReplay<Model, Event, Effect>.Rejections()
        var invalid: UInt64?
        let chunk: JournalReader.Chunk
        if let plugin {
            let replayed = replay.replay(
                &model, from: base.seq + 1, through: target, plugin: plugin,
                label: "update plugin \(plugin.name) (a replay for \(request) at seq \(target))", log: log,
                progress: progress, rejections: &rejections, invalid: &invalid)
            switch replayed {
            case .success(let read): chunk = read
            case .failure(let problem):
                ticker.stop()
                return .failure(problem)
            }
        } else {
            chunk = replay.replay(
                &model, from: base.seq + 1, through: target, maxBytes: .max, cursor: nil, progress: progress,
                rejections: &rejections, invalid: &invalid
            ) { _, _, _ in }
        }
        ticker.stop()
        noteRejections(rejections, what: "\(request) at seq \(target)", log: log)
        let elapsed = SystemProcess.monotonicNanoseconds() - started
        if elapsed >= ProgressPace.firstReportNanoseconds {
            log.info("\(what): \(progress.done) events in \(elapsed / 1_000_000) ms")
        }
        if let problem = replay.shortfall(chunk, target: target, invalid: invalid) { return .failure(problem) }
        return .success(model)
    }

    /// Logs the events of a replay the app rejects now, once per replay.
    private static func noteRejections(
        _ rejections: HistoryReplay<Model, Event, Effect>.Rejections, what: String, log: DaemonLog
    ) {
        guard let first = rejections.first else { return }
        log.warning(
            "\(what): the app rejects \(rejections.count) journaled events now (the first, seq \(first.seq): "
                + "\(first.message)); the model stays as it was before each, as in recovery")
    }

    /// A chunk that ends a `log {"models":true}` stream at `next` for `problem`: compaction and damage end it as they
    /// end `log`, anything else with the error.
    private static func chunk(next: UInt64, _ problem: HistoryProblem) -> JournalReader.Chunk {
        var chunk = JournalReader.Chunk(next: next)
        switch problem {
        case .compacted: chunk.vanished = true
        case .damaged(let damage?, _): chunk.damage = damage
        default: chunk.refusal = problem
        }
        return chunk
    }

    /// Stops replays under way (shutdown): each ends at its next event, answered `ShuttingDown`.
    func stop() {
        stopped.raise()
    }
}
