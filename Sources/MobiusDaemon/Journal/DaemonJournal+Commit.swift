import MobiusCore
import MobiusJSON
import MobiusSystem

extension DaemonJournal: PassCommitHook {
    /// Journals a pass that needs no wait: `--ephemeral` (the window only), or `fsync` `batch` and `never` (one
    /// write on this thread, a page-cache copy). `nil` with `always`, whose pass waits for its fdatasync (`commit`).
    var keepsPassesInMemory: Bool { writer == nil }

    func commitAtOnce(_ pass: inout PassCommit) -> CommitOutcome? {
        guard let seqs = pass.seqs else { return .committed }
        if writer != nil && settings.fsync == .always && reactor != nil { return nil }
        // Just after a failure a `batch` or `never` pass waits too (`commit`).
        if writer != nil && reactor != nil && SystemProcess.monotonicNanoseconds() < retryNotBefore { return nil }
        snapshotIfDue()
        var records = pass.takeRecords()
        let models = pass.takeModels()
        guard let writer else {
            // Ephemeral: the window is the whole history, and its records never leave memory (no checksums).
            committed(&records, seqs: seqs, models: models)
            pass.returnBuffer(&records)
            return .committed
        }
        JournalRecord.seal(&records)
        do {
            try writer.append(records, firstSeq: seqs.lowerBound, lastSeq: seqs.upperBound)
        } catch {
            return failed(error)
        }
        committed(&records, seqs: seqs, models: models)
        pass.returnBuffer(&records)
        scheduleBatchSync()
        return .committed
    }

    /// Journals a pass with `fsync: "always"`: one write and one fdatasync for all its events (group commit); `done`
    /// runs on the reactor thread after them. A small pass is written here and synced by the kernel in the background
    /// (`backgroundSync`); a big one, or any pass where that is unavailable, is written and synced on the journal
    /// thread. Either way the reactor thread never waits for the disk's sync.
    func commit(_ pass: consuming PassCommit, done: @escaping (CommitOutcome) -> Void) {
        let now = SystemProcess.monotonicNanoseconds()
        if now < retryNotBefore, let reactor {
            // Just after a failure: the loop queues the events nobody can resend again, so a disk that stays full
            // must not make that a busy loop.
            let waiting = pass
            reactor.after(nanoseconds: retryNotBefore - now) { [weak self] in self?.commit(waiting, done: done) }
            return
        }
        if let outcome = commitAtOnce(&pass) {
            done(outcome)
            return
        }
        guard let seqs = pass.seqs, let reactor, let writer else {
            preconditionFailure("commitAtOnce answers every pass without events or without a journal thread")
        }
        snapshotIfDue()
        var records = pass.takeRecords()
        let models = pass.takeModels()
        JournalRecord.seal(&records)
        if let backgroundSync, syncing == nil, records.count <= Self.backgroundSyncBytes,
            syncInBackground(records, seqs: seqs, models: models, writer: writer, sync: backgroundSync, done: done)
        {
            return
        }
        let sealed = records
        let waker = reactor.waker
        let journal = UncheckedSendable(value: self)
        let finish = UncheckedSendable(value: done)
        journalThread.submit {
            let result = Result { () throws(SystemError) in
                try writer.append(sealed, firstSeq: seqs.lowerBound, lastSeq: seqs.upperBound)
            }
            waker.post {
                switch result {
                case .success:
                    finish.value(.committed)
                    var records = sealed
                    journal.value.committed(&records, seqs: seqs, models: models)
                case .failure(let error):
                    finish.value(journal.value.failed(error))
                }
            }
        }
    }

    /// How long after a failed pass the next one is tried (not sooner: it would likely fail the same way).
    static var retryDelayNanoseconds: UInt64 { 100_000_000 }

    /// Passes with up to this many bytes of records take the background sync: the reactor thread's part is a
    /// page-cache copy of at most this much. Bigger ones go to the journal thread.
    static var backgroundSyncBytes: Int { 64 * 1024 }

    /// The pass whose background fdatasync is running: what `backgroundSyncDone` needs to finish it.
    struct SyncingPass {
        let records: [UInt8]
        let seqs: ClosedRange<UInt64>
        let models: [JSONValue]
        let fd: FileDescriptor
        let done: (CommitOutcome) -> Void
        /// When its fdatasync was handed to the kernel (monotonic nanoseconds).
        let submittedAt: UInt64
    }

    /// Writes a small pass and hands its fdatasync to the kernel; `false` when the pass must go to the journal
    /// thread instead (a new segment is due: starting one syncs the state directory).
    private func syncInBackground(
        _ records: [UInt8], seqs: ClosedRange<UInt64>, models: [JSONValue], writer: JournalWriter,
        sync: AsyncDataSync, done: @escaping (CommitOutcome) -> Void
    ) -> Bool {
        let fd: FileDescriptor
        do {
            guard let written = try writer.writeForSync(records) else { return false }
            fd = written
        } catch {
            abandonThenFail(error, writer: writer, done: done)
            return true
        }
        let submittedAt = SystemProcess.monotonicNanoseconds()
        do {
            try sync.submit(fd)
        } catch {
            // The kernel took the start-up probe's sync but refuses this one: the pass fails like a failed write
            // (its bytes are cut back), and from now on the journal thread syncs.
            backgroundSync = nil
            log.warning("background fdatasync failed to start (\(error)); the journal thread syncs from now on")
            abandonThenFail(error, writer: writer, done: done)
            return true
        }
        syncing = SyncingPass(
            records: records, seqs: seqs, models: models, fd: fd, done: done, submittedAt: submittedAt)
        return true
    }

    /// The background fdatasync has completed (its eventfd is readable): the pass is committed, or it fails.
    func backgroundSyncDone() {
        guard let sync = backgroundSync else { return }
        guard let pass = syncing else {
            // Nothing in flight: clear the descriptor so that a stray signal cannot keep the reactor busy.
            sync.completion.drain()
            return
        }
        guard let outcome = sync.reap(pass.fd) else { return }
        // The eventfd is drained after the outcome is acted on: one system call less before the replies.
        defer { sync.completion.drain() }
        syncing = nil
        switch outcome {
        case .success:
            let elapsed = SystemProcess.monotonicNanoseconds() &- pass.submittedAt
            writer?.synced(byteCount: pass.records.count, lastSeq: pass.seqs.upperBound, nanoseconds: elapsed)
            // The pass's replies go out first; the window and counters follow before any other pass can run.
            pass.done(.committed)
            var records = pass.records
            committed(&records, seqs: pass.seqs, models: pass.models)
        case .failure(let error):
            guard let writer else {
                pass.done(failed(error))
                return
            }
            abandonThenFail(error, writer: writer, done: pass.done)
        }
    }

    /// After a background write or sync failed: the segment is cut back and closed on the journal thread (the cut
    /// is synced, which may take long on a failing disk), then the pass gets `StorageFailure`.
    private func abandonThenFail(_ error: SystemError, writer: JournalWriter, done: @escaping (CommitOutcome) -> Void) {
        guard let reactor else {
            preconditionFailure("a pass is journaled only once the journal is attached to the reactor")
        }
        let waker = reactor.waker
        let journal = UncheckedSendable(value: self)
        let finish = UncheckedSendable(value: done)
        journalThread.submit {
            writer.abandon(after: error)
            waker.post { finish.value(journal.value.failed(error)) }
        }
    }

    /// Where passes are synced, for `status`: by the kernel in the background (small `always` passes), on the journal
    /// thread (the other `always` passes, and `batch`), or nowhere (`never`, `--ephemeral`).
    var fdatasyncWhere: String {
        guard writer != nil, settings.fsync != .never else { return "none" }
        return backgroundSync == nil ? "journal thread" : "kernel background"
    }

    /// Leaves `records` as `RecentRecords.append` does: as it was when the window copied them, else empty. `models`
    /// are the loop's models after the pass's last events, for `log {"models":true}` streams at the head.
    private func committed(_ records: inout [UInt8], seqs: ClosedRange<UInt64>, models: [JSONValue]) {
        committedSeq = seqs.upperBound
        snapshots.committed(events: seqs.count, bytes: records.count)
        window.append(&records, firstSeq: seqs.lowerBound, lastSeq: seqs.upperBound)
        logStreams.committed(models: models, lastSeq: seqs.upperBound)
        if let writer, writer.fillDue() { journalThread.submit { writer.fillAhead() } }
    }

    private func failed(_ error: SystemError) -> CommitOutcome {
        storageFailures += 1
        retryNotBefore = SystemProcess.monotonicNanoseconds() + Self.retryDelayNanoseconds
        return .failed(.storageFailure, "the journal could not be written (\(error)); the event was not applied")
    }

    /// `batch`: one fdatasync on the journal thread at most every 100 ms while there are unsynced writes.
    private func scheduleBatchSync() {
        guard settings.fsync == .batch, !batchSyncScheduled, let reactor, let writer else { return }
        batchSyncScheduled = true
        reactor.after(nanoseconds: JournalSettings.batchInterval) { [weak self] in
            guard let self else { return }
            batchSyncScheduled = false
            journalThread.submit { writer.synchronizePending() }
        }
    }

    // MARK: - Snapshots

    /// Takes a snapshot of the committed model when enough events or journal bytes have gone by since the last.
    /// The model's JSON is taken here (on the reactor thread, between passes, so it is exactly the model after the
    /// committed seq) and written on the journal thread, ahead of the next pass's records.
    private func snapshotIfDue() {
        guard snapshots.isDue(settings), let writer, let reactor, let committedModel else { return }
        let (seq, model) = committedModel()
        guard let model, seq > lastSnapshotSeq else { return }
        snapshots.started()
        let snapshot = SnapshotFile(epoch: epoch, seq: seq, time: PassCommit.now(), model: model)
        let waker = reactor.waker
        let journal = UncheckedSendable(value: self)
        let log = self.log
        journalThread.submit {
            let result = Result { () throws(SystemError) in try writer.writeSnapshot(snapshot) }
            if case .failure(let error) = result {
                log.warning(
                    "cannot write the snapshot of seq \(seq): \(error); the journal keeps everything until a "
                        + "later snapshot succeeds")
            }
            waker.post {
                journal.value.snapshots.finished()
                guard case .success = result else { return }
                journal.value.lastSnapshotSeq = seq
                journal.value.lastSnapshotTime = snapshot.time
                // Events that came while it ran may already make the next one due: it starts now, not at the next
                // pass, so a burst that ends meanwhile is still compacted behind. (After a failure the next pass
                // tries again, so a full disk does not make this a loop.)
                journal.value.snapshotIfDue()
            }
        }
    }
}

extension DaemonJournal: LogSource {
    var hasDisk: Bool { catalog != nil }

    func appendLines(from: UInt64, through: UInt64, maxBytes: Int, to output: inout [UInt8]) -> UInt64? {
        window.appendLines(from: from, through: through, maxBytes: maxBytes, to: &output)
    }

    func appendModelLines(
        from: UInt64, through: UInt64, maxBytes: Int, to output: inout [UInt8]
    ) -> (next: UInt64, model: JSONValue)? {
        let models = logStreams.recentModels
        guard models.model(at: from) != nil else { return nil }
        var last: JSONValue?
        let next = window.appendLines(from: from, through: through, maxBytes: maxBytes, to: &output) {
            record, output in
            guard let model = models.model(at: record.seq) else { return false }
            LogLine.append(record, model: model, to: &output)
            last = model
            return true
        }
        guard let next, let last else { return nil }
        return (next, last)
    }

    func readModelLines(
        from: UInt64, through: UInt64, maxBytes: Int, cursor: JournalReader.Cursor?, after: JSONValue?,
        done: @escaping (JournalReader.Chunk) -> Void
    ) {
        guard let pastModels else {
            done(JournalReader.Chunk(next: from, vanished: true))
            return
        }
        pastModels.readModelLines(
            from: from, through: through, maxBytes: maxBytes, cursor: cursor, after: after, done: done)
    }

    func readLines(
        from: UInt64, through: UInt64, maxBytes: Int, cursor: JournalReader.Cursor?,
        done: @escaping (JournalReader.Chunk) -> Void
    ) {
        guard let catalog, let reactor else {
            done(JournalReader.Chunk(next: from, vanished: true))
            return
        }
        let reader = JournalReader(catalog: catalog)
        let waker = reactor.waker
        let finish = UncheckedSendable(value: done)
        readThread.submit {
            let chunk = reader.read(from: from, through: through, maxBytes: maxBytes, cursor: cursor)
            waker.post { finish.value(chunk) }
        }
    }
}
