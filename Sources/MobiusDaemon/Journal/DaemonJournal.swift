import MobiusJSON
import MobiusSystem

/// The daemon's durable state as one part of the runtime: the locked state directory, recovery at start, the
/// commit hook that journals each pass (group commit), snapshots and compaction, and the source of `log` streams.
/// With `--ephemeral` only the in-memory window of recent records is kept.
///
/// Threads: everything here but the writer's work runs on the reactor thread. The pass writes its records as it
/// applies its events (`PassCommit`). With `fsync: "always"` a small pass is written on the reactor and synced by
/// the kernel in the background (`backgroundSync`), any other is written and fdatasynced on the journal thread,
/// which posts the outcome back; with `batch` and `never` they are written on the reactor (a page-cache copy) and
/// the journal thread syncs every 100 ms (`batch`). Snapshots are written on the journal thread; `log`
/// reads of older records on the read thread.
final class DaemonJournal {
    let settings: JournalSettings
    /// `nil` with `--ephemeral`.
    let directory: StateDirectory?
    let log: DaemonLog
    let epoch: String
    private(set) var catalog: JournalCatalog?
    private(set) var writer: JournalWriter?
    let window: RecentRecords
    /// Replays past models for `log {"models":true}` streams behind the head; given by the runtime (`attach`).
    private(set) var pastModels: (any PastModelReader)?
    let journalThread = BlockingWorker(name: "mobiusd-journal", stackSize: 4 << 20)
    let readThread = BlockingWorker(name: "mobiusd-jread", stackSize: 1 << 20)
    var reactor: Reactor?

    /// The last committed seq. This and the rest below are the reactor thread's.
    var committedSeq: UInt64 = 0
    var snapshots = SnapshotSchedule()
    var batchSyncScheduled = false
    /// The kernel's background fdatasync for small `always` passes; `nil` where it is missing (the journal thread then
    /// syncs every pass) and for `batch`, `never` and `--ephemeral`.
    var backgroundSync: AsyncDataSync?
    /// The pass whose background fdatasync is running.
    var syncing: SyncingPass?
    var storageFailures: UInt64 = 0
    /// No pass is written before this (monotonic nanoseconds): a moment after the last failure.
    var retryNotBefore: UInt64 = 0
    var lastSnapshotSeq: UInt64 = 0
    /// When the newest snapshot was taken (nanoseconds since 1970), or `nil` when there is none.
    var lastSnapshotTime: Int64?
    /// Reads the committed model (seq and JSON) for a snapshot: the loop's that `recover` restored, which is given
    /// with the writer (without one there are no snapshots).
    private(set) var committedModel: (() -> (UInt64, JSONValue?))?
    /// The control server's log streams, which read from here: those at the head go on after each committed pass
    /// with events (held directly, not through a closure: this runs per pass).
    let logStreams = LogStreams()

    private init(settings: JournalSettings, directory: StateDirectory?, log: DaemonLog) {
        self.settings = settings
        self.directory = directory
        self.log = log
        self.epoch = directory?.epoch ?? StateDirectory.newEpoch()
        self.window = RecentRecords(limit: settings.logWindowBytes)
    }

    /// Opens (and locks) the state directory, or nothing with `ephemeral`. Call before binding the socket, so a
    /// second daemon on the same directory stops with a clear message.
    static func open(
        settings: JournalSettings, path: String?, log: DaemonLog
    ) throws(DaemonStartError)
        -> DaemonJournal
    {
        guard let path else { return DaemonJournal(settings: settings, directory: nil, log: log) }
        let directory = try StateDirectory.open(path)
        if directory.isNew { log.notice("new state directory \(path) (epoch \(directory.epoch))") }
        return DaemonJournal(settings: settings, directory: directory, log: log)
    }

    var isEphemeral: Bool { directory == nil }

    // MARK: - Recovery

    /// Loads the newest snapshot and replays the journal after it into `loop` (effects discarded), whose committed
    /// model later snapshots read. Runs on the reactor thread before it serves. A recovery that takes more than a
    /// second reports its progress every few seconds to the log and to systemd (`STATUS=`, `EXTEND_TIMEOUT_USEC=`
    /// while it advances) through `notifier`.
    func recover<Model, Event, Effect>(
        into loop: DaemonLoop<Model, Event, Effect>, notifier: SystemdNotifier? = nil
    ) throws(DaemonStartError) {
        guard let directory else { return }
        let started = SystemProcess.monotonicNanoseconds()
        let recovery = JournalRecovery(
            directory: directory.path, epoch: epoch, log: log, keepSnapshots: settings.keepSnapshots)
        var progress: ReplayProgress?
        var ticker: ProgressTicker?
        defer { ticker?.stop() }
        let outcome = try recovery.run(
            restore: { snapshot throws(DaemonStartError) in
                do {
                    try loop.restore(model: snapshot.model, seq: snapshot.seq)
                } catch {
                    throw DaemonStartError(
                        description: "the snapshot of seq \(snapshot.seq) in \(directory.path) does not fit the app's "
                            + "model: \(EventRejection.message(for: error))")
                }
            },
            expecting: { total in
                let counted = ReplayProgress(total: total)
                progress = counted
                ticker = RecoveryReport.ticker(counted, notifier: notifier, log: log)
            },
            replay: { batch in loop.replay(batch, progress: progress) })
        ticker?.stop()
        ticker = nil
        catalog = outcome.catalog
        committedSeq = outcome.lastSeq
        lastSnapshotSeq = outcome.snapshot?.seq ?? 0
        lastSnapshotTime = outcome.snapshot?.time
        snapshots = SnapshotSchedule(eventsSince: outcome.replayed)
        writer = JournalWriter(
            directory: directory.path, catalog: outcome.catalog, segmentBytes: settings.segmentBytes,
            policy: settings.fsync, keepSnapshots: settings.keepSnapshots, log: log)
        committedModel = { [unowned loop] in (loop.state.seq, loop.currentModelJSON()) }
        let elapsed = Double(SystemProcess.monotonicNanoseconds() - started) / 1e9
        let from = outcome.snapshot.map { "the snapshot at seq \($0.seq) and " } ?? ""
        log.info(
            "recovered seq \(outcome.lastSeq) from \(from)\(outcome.replayed) journaled events in "
                + "\(String(Int(elapsed * 1000))) ms (\(directory.path), epoch \(epoch))")
    }

    // MARK: - Wiring

    /// Joins the runtime: its threads post their outcomes to the runtime's reactor, and its history replays past
    /// models for `log` streams.
    func attach<Model, Event, Effect>(to runtime: DaemonRuntime<Model, Event, Effect>) {
        reactor = runtime.reactor
        pastModels = runtime.history
        if settings.fsync == .always, let writer {
            startBackgroundSync(directory: writer.directory, on: runtime.reactor)
        }
    }

    /// Sets up the kernel's background fdatasync (checked by syncing the state directory once), or says why the
    /// journal thread syncs instead.
    private func startBackgroundSync(directory: String, on reactor: Reactor) {
        do {
            let sync = try AsyncDataSync(probing: directory)
            let handler = ClosureHandler { [unowned self] _ in backgroundSyncDone() }
            _ = try reactor.register(sync.completion.fd, for: .readable, handler: handler)
            backgroundSync = sync
        } catch {
            log.info(
                "fdatasync runs on the journal thread: the kernel's background fdatasync is unavailable (\(error))")
        }
    }

    /// The lowest seq `log` can still send, or `nil` when `log` is `Unavailable`: `--ephemeral` with no window keeps
    /// no history (docs/protocol.md 1.3).
    var firstLoggedSeq: UInt64? {
        !isEphemeral || settings.logWindowBytes > 0 ? firstKeptSeq : nil
    }

    /// The seq after which `log {"models":true}` can give models: the oldest base a replay can start from; `nil`
    /// with `--ephemeral` (only the head's).
    var firstModelBase: UInt64? {
        catalog?.replayBases.first ?? (isEphemeral ? nil : committedSeq)
    }

    /// Whether a `log {"models":true}` stream takes the loop's models of each pass.
    var wantsEventModels: Bool { logStreams.hasModelStreams }

    /// The lowest seq `log` can still send.
    var firstKeptSeq: UInt64 {
        if let catalog { return catalog.firstKeptSeq ?? window.firstSeq ?? committedSeq + 1 }
        return window.firstSeq ?? committedSeq + 1
    }

    /// Flushes and closes the open segment (clean shutdown).
    func close() {
        guard let writer else { return }
        let closed = ClosedSignal()
        journalThread.submit {
            writer.close()
            closed.signal()
        }
        closed.wait()
    }

    /// The journal's figures for `metrics`, or `nil` with `--ephemeral`.
    var metricsSample: JournalSample? {
        guard directory != nil else { return nil }
        let now = PassCommit.now()
        return JournalSample(
            bytes: catalog?.journalBytes ?? 0, segments: catalog?.segments.count ?? 0,
            storageFailures: storageFailures,
            snapshot: lastSnapshotTime.map { (lastSnapshotSeq, Double(max(0, now - $0)) / 1e9) })
    }

    /// The `state` member of `status`.
    func statusValue() -> JSONValue {
        var members: [(String, JSONValue)] = [
            ("ephemeral", .bool(isEphemeral)),
            ("fsync", .string(isEphemeral ? "never" : settings.fsync.rawValue)),
            ("firstKeptSeq", .number(JSONNumber(firstKeptSeq))),
            ("storageFailures", .number(JSONNumber(storageFailures))),
            ("fdatasync", .string(fdatasyncWhere)),
            ("damaged", .array((catalog?.damaged ?? []).map(\.statusValue))),
        ]
        if let directory {
            members.append(("directory", .string(directory.path)))
            members.append(("snapshotSeq", .number(JSONNumber(lastSnapshotSeq))))
            members.append(("journalBytes", .number(JSONNumber(catalog?.journalBytes ?? 0))))
            members.append(("segments", .number(JSONNumber(catalog?.segments.count ?? 0))))
        }
        return .object(JSONObject(members))
    }
}

/// A one-time signal from the journal thread that the writer is closed.
private final class ClosedSignal: @unchecked Sendable {
    // @unchecked: `done` is only touched while holding `condition`'s mutex.
    private let condition = ThreadCondition()
    private var done = false

    func signal() {
        condition.withLock { done = true }
        condition.broadcast()
    }

    func wait() {
        condition.withLock {
            while !done { condition.wait() }
        }
    }
}
