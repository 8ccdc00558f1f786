import MobiusJSON
import MobiusSystem
import Synchronization

/// Appends passes to the journal's segment files, writes snapshots and compacts behind them.
///
/// With `fsync: always`, a small pass is written on the reactor thread and synced by the kernel in the background
/// (`writeForSync`, then `synced` or `abandon`); any other such pass is written and synced by `append` on the
/// journal thread. With `batch` and `never`, `append` runs on the reactor thread. `synchronizePending`, `abandon`
/// and `writeSnapshot` run on the journal thread. The open segment is behind a lock; fdatasync of `batch` mode works
/// on a duplicate of its descriptor outside the lock, so an append never waits for it.
final class JournalWriter: Sendable {
    let directory: String
    let catalog: JournalCatalog
    let segmentBytes: Int64
    let policy: DaemonConfig.FsyncPolicy
    /// Snapshots kept, the newest included (`state.keepSnapshots`).
    let keepSnapshots: Int
    private let log: DaemonLog

    private struct Active {
        var fd: FileDescriptor?
        var path = ""
        var firstSeq: UInt64 = 0
        /// Committed bytes (header and whole passes).
        var length: Int64 = 0
        /// `batch`: written since the last fdatasync.
        var unsynced = false
        /// Segments moved on from in `batch` mode, to be synced and closed by the journal thread.
        var retired: [FileDescriptor] = []
        /// `always`: the segment holds zeros, written and synced, up to here (`fillAhead`). A record written below
        /// it overwrites blocks the file already has, so its fdatasync has no metadata to commit.
        var zeroedEnd: Int64 = 0
        /// A fill is scheduled or running; until it is done, passes that would reach past `zeroedEnd` go to the
        /// journal thread (after the fill), so that the fill never writes zeros over a record.
        var filling = false
        /// A fill failed (the disk is full, or the file at its size limit): no more for this segment.
        var fillFailed = false
        /// How long the fdatasyncs of passes took (`metrics`), whichever thread or the kernel ran them.
        let fdatasyncLatency = LatencyHistogram()
    }

    /// Zeros written ahead of the records at a time, and how little room left starts the next fill.
    static var fillBytes: Int64 { 4 << 20 }
    static var fillLowWater: Int64 { 2 << 20 }
    /// Zeros written when a segment starts, before its first record (the fills after it run in the background).
    static var initialFillBytes: Int64 { 256 << 10 }

    private let active = Mutex(Active())

    init(
        directory: String, catalog: JournalCatalog, segmentBytes: Int, policy: DaemonConfig.FsyncPolicy,
        keepSnapshots: Int = 2, log: DaemonLog
    ) {
        self.directory = directory
        self.catalog = catalog
        self.segmentBytes = Int64(segmentBytes)
        self.policy = policy
        self.keepSnapshots = max(2, keepSnapshots)
        self.log = log
    }

    /// Writes one pass's records (seqs `firstSeq...lastSeq`), and fdatasyncs with `fsync: always`.
    ///
    /// On failure the segment is cut back to its last committed pass and closed; the next pass starts a new
    /// segment, so no fdatasync is ever retried on pages whose write-back failed.
    func append(_ records: [UInt8], firstSeq: UInt64, lastSeq: UInt64) throws(SystemError) {
        try active.withLock { (active: inout Active) throws(SystemError) in
            if active.fd == nil || active.length >= segmentBytes {
                try startSegment(&active, firstSeq: firstSeq)
            }
            guard let fd = active.fd else { return }
            do throws(SystemError) {
                try fd.writeAll(records, at: active.length)
                if policy == .always {
                    let started = SystemProcess.monotonicNanoseconds()
                    try fd.synchronizeData()
                    active.fdatasyncLatency.observe(since: started, now: SystemProcess.monotonicNanoseconds())
                }
            } catch {
                abandonSegment(&active, after: error)
                throw error
            }
            if policy == .batch { active.unsynced = true }
            commit(&active, byteCount: records.count, lastSeq: lastSeq)
        }
    }

    /// `always`, a small pass: writes its records and leaves their fdatasync to the caller (`AsyncDataSync`), who
    /// then calls `synced` or `abandon`. Returns the descriptor to sync, or `nil` when the pass must go the journal
    /// thread's way (`append`): a new segment is due, and starting one syncs the state directory.
    func writeForSync(_ records: [UInt8]) throws(SystemError) -> FileDescriptor? {
        try active.withLock { (active: inout Active) throws(SystemError) -> FileDescriptor? in
            guard let fd = active.fd, active.length < segmentBytes else { return nil }
            if active.filling && active.length + Int64(records.count) > active.zeroedEnd { return nil }
            try fd.writeAll(records, at: active.length)
            return fd
        }
    }

    /// The pass `writeForSync` wrote is on disk, its fdatasync having taken `nanoseconds`: it joins the segment.
    func synced(byteCount: Int, lastSeq: UInt64, nanoseconds: UInt64) {
        active.withLock { active in
            active.fdatasyncLatency.observe(nanoseconds)
            commit(&active, byteCount: byteCount, lastSeq: lastSeq)
        }
    }

    /// The fdatasync latencies so far.
    var fdatasyncSample: HistogramSample {
        active.withLock { $0.fdatasyncLatency.sample }
    }

    /// After `writeForSync` or its fdatasync failed: as `append` after a failure (run it on the journal thread: the
    /// cut is synced).
    func abandon(after error: SystemError) {
        active.withLock { abandonSegment(&$0, after: error) }
    }

    private func commit(_ active: inout Active, byteCount: Int, lastSeq: UInt64) {
        active.length += Int64(byteCount)
        let (path, length) = (active.path, active.length)
        catalog.update { segments, _ in
            if let index = segments.lastIndex(where: { $0.path == path }) {
                segments[index].lastSeq = lastSeq
                segments[index].length = length
            }
        }
    }

    /// Whether the open segment should get more zero-filled room now (`always` only); if so it is marked as filling,
    /// and the caller runs `fillAhead` on the journal thread.
    func fillDue() -> Bool {
        guard policy == .always else { return false }
        return active.withLock { active in
            guard active.fd != nil, !active.filling, !active.fillFailed else { return false }
            let limit = Int64(JournalSegment.headerSize) + segmentBytes
            guard active.zeroedEnd < limit, active.zeroedEnd - active.length < Self.fillLowWater else { return false }
            active.filling = true
            return true
        }
    }

    /// Writes zeros after the records, up to `fillBytes` ahead, and syncs them (journal thread, after `fillDue`).
    /// Runs without the lock: the reactor may write records meanwhile, but only below the room already zeroed.
    func fillAhead() {
        let job = active.withLock { active -> (FileDescriptor, String, Int64, Int64)? in
            guard let fd = active.fd, active.filling else {
                active.filling = false
                return nil
            }
            let from = max(active.length, active.zeroedEnd)
            let to = min(from + Self.fillBytes, Int64(JournalSegment.headerSize) + segmentBytes)
            guard to > from else {
                active.filling = false
                return nil
            }
            return (fd, active.path, from, to)
        }
        guard let (fd, path, from, to) = job else { return }
        let outcome = Result { () throws(SystemError) in try Self.writeZeros(fd, from: from, to: to) }
        active.withLock { active in
            active.filling = false
            guard active.path == path, active.fd != nil else { return }
            switch outcome {
            case .success: active.zeroedEnd = max(active.zeroedEnd, to)
            case .failure(let error): noteFillFailed(&active, error)
            }
        }
    }

    /// No more fills for this segment; said once per segment, and rate-limited (a full disk fails every segment).
    private func noteFillFailed(_ active: inout Active, _ error: SystemError) {
        active.fillFailed = true
        log.limited(
            "journal fill failed", .info,
            "journal: no zero-filled room ahead in \(active.path) (\(error)); its records are appended")
    }

    private static func writeZeros(_ fd: FileDescriptor, from: Int64, to: Int64) throws(SystemError) {
        let chunk = Int(min(to - from, 256 << 10))
        let zeros = [UInt8](repeating: 0, count: chunk)
        var offset = from
        while offset < to {
            let count = Int(min(Int64(chunk), to - offset))
            try fd.writeAll(count == chunk ? zeros : [UInt8](repeating: 0, count: count), at: offset)
            offset += Int64(count)
        }
        try fd.synchronizeData()
    }

    private func startSegment(_ active: inout Active, firstSeq: UInt64) throws(SystemError) {
        if let old = active.fd {
            if policy == .batch { active.retired.append(old) } else { old.close() }
            active.fd = nil
        }
        let path = directory + "/" + JournalSegment.name(firstSeq: firstSeq)
        // A segment of this name can only be one that a storage failure left without records; one with records is
        // never overwritten.
        if let size = try FileSystem.fileSize(path) {
            guard size <= Int64(JournalSegment.headerSize) else {
                throw SystemError(errno: Errno.fileExists, operation: "create segment", subject: path)
            }
            try FileSystem.remove(path)
        }
        let fd = try FileDescriptor.openFile(path, .createNew(mode: 0o600))
        do {
            let header = JournalSegment.header(firstSeq: firstSeq)
            try fd.writeAll(header, at: 0)
            // The new name must be durable before an ack depends on what is written into it.
            if policy != .never { try FileSystem.synchronizeDirectory(directory) }
        } catch {
            fd.close()
            try? FileSystem.remove(path)
            throw error
        }
        active.fd = fd
        active.path = path
        active.firstSeq = firstSeq
        active.length = Int64(JournalSegment.headerSize)
        active.zeroedEnd = 0
        active.filling = false
        active.fillFailed = false
        if policy == .always {
            // Room for the first records before the background fills take over; without it they are appended.
            let to = min(active.length + Self.initialFillBytes, active.length + segmentBytes)
            do {
                try Self.writeZeros(fd, from: active.length, to: to)
                active.zeroedEnd = to
            } catch {
                noteFillFailed(&active, error)
            }
        }
        catalog.update { segments, _ in
            segments.removeAll { $0.path == path }
            segments.append(
                JournalCatalog.Segment(
                    firstSeq: firstSeq, path: path, lastSeq: firstSeq - 1, length: Int64(JournalSegment.headerSize)))
        }
    }

    /// After a failed write or fdatasync: cut the segment back to its committed length, make that cut durable if
    /// the kernel lets us, and close it. A segment left without records is removed.
    private func abandonSegment(_ active: inout Active, after error: SystemError) {
        guard let fd = active.fd else { return }
        let path = active.path
        let length = active.length
        try? fd.truncate(to: length)
        try? fd.synchronize()
        fd.close()
        active.fd = nil
        let empty = length <= Int64(JournalSegment.headerSize)
        if empty {
            try? FileSystem.remove(path)
            catalog.update { segments, _ in segments.removeAll { $0.path == path } }
        }
        // Rate-limited: while the disk stays full, a pass is tried again every 100 ms (docs/durability.md).
        log.limited(
            "journal write failed", .error,
            "journal write failed: \(error); \(path) cut back to \(length) bytes"
                + (empty ? " and removed (it held no committed record)" : "")
                + "; the events of the failed pass get StorageFailure and the next pass starts a new segment")
    }

    /// `batch`: fdatasyncs what was written since the last call (on the journal thread).
    func synchronizePending() {
        let (fd, retired) = active.withLock { active -> (FileDescriptor?, [FileDescriptor]) in
            let retired = active.retired
            active.retired = []
            guard active.unsynced, let fd = active.fd else { return (nil, retired) }
            active.unsynced = false
            return (try? fd.duplicate(), retired)
        }
        for old in retired {
            do { try old.synchronizeData() } catch { reportBatchSyncFailure(error) }
            old.close()
        }
        guard let fd else { return }
        defer { fd.close() }
        do {
            let started = SystemProcess.monotonicNanoseconds()
            try fd.synchronizeData()
            let elapsed = SystemProcess.monotonicNanoseconds() - started
            active.withLock { $0.fdatasyncLatency.observe(elapsed) }
        } catch {
            reportBatchSyncFailure(error)
            // The pages whose write-back failed cannot be trusted: move on to a new segment.
            active.withLock { active in
                active.fd?.close()
                active.fd = nil
            }
        }
    }

    private func reportBatchSyncFailure(_ error: SystemError) {
        log.error(
            "journal fdatasync failed: \(error); events acknowledged in the last 100 ms may not be on disk "
                + "(fsync \"batch\"); the next pass starts a new segment")
    }

    /// Closes the open segment (at shutdown), syncing it first unless `fsync` is `never`.
    func close() {
        active.withLock { active in
            for old in active.retired {
                try? old.synchronizeData()
                old.close()
            }
            active.retired = []
            if let fd = active.fd {
                if policy != .never { try? fd.synchronizeData() }
                fd.close()
            }
            active.fd = nil
        }
    }

    // MARK: - Snapshots

    /// Writes a snapshot durably, then compacts: keeps the `keepSnapshots` newest snapshots and, once there are that
    /// many, the segments that hold anything after the oldest of them, and removes the rest.
    func writeSnapshot(_ snapshot: SnapshotFile) throws(SystemError) {
        _ = try snapshot.write(into: directory)
        var doomedSnapshots: [UInt64] = []
        var doomedSegments: [String] = []
        var compactedThrough: UInt64?
        let activePath = active.withLock { $0.fd == nil ? "" : $0.path }
        catalog.update { segments, snapshots in
            if !snapshots.contains(snapshot.seq) { snapshots.append(snapshot.seq) }
            snapshots.sort()
            if snapshots.count > keepSnapshots {
                doomedSnapshots = Array(snapshots.dropLast(keepSnapshots))
                snapshots.removeFirst(snapshots.count - keepSnapshots)
            }
            guard snapshots.count == keepSnapshots else { return }
            let keepAfter = snapshots[0]
            compactedThrough = keepAfter
            let doomed = segments.filter { $0.lastSeq <= keepAfter && $0.path != activePath }
            doomedSegments = doomed.map(\.path)
            segments.removeAll { doomed.contains($0) }
        }
        if let compactedThrough { catalog.forgetDamage(through: compactedThrough) }
        for seq in doomedSnapshots { try? FileSystem.remove(directory + "/" + SnapshotFile.name(seq: seq)) }
        for path in doomedSegments { try? FileSystem.remove(path) }
        if !doomedSnapshots.isEmpty || !doomedSegments.isEmpty {
            try? FileSystem.synchronizeDirectory(directory)
        }
    }
}
