import MobiusSystem

/// The loop's counters and latencies for `metrics` (docs/protocol.md, "Metrics"), kept on the reactor thread.
///
/// A pass counts into its `PassWork` as it goes (only events from sources other than clients, and rejections), and
/// the loop adds those counts here once the pass is committed, so an undone pass counts as what it became.
final class LoopMetrics {
    /// From a pass's first input queued to the end of the reactor round that handed its replies to their
    /// connections, per pass: how long every reply of the pass, acks included, waited in the daemon at most.
    let passLatency = LatencyHistogram()
    /// The commit hook's time per pass that the journal writes (not with `--ephemeral`).
    let commitLatency = LatencyHistogram()
    /// Applied events from sources other than clients, by source; clients' are the rest of `LoopState.accepted`.
    private(set) var acceptedElsewhere = SourceCounts()
    /// Rejected events and event lines, by error code and source.
    private(set) var rejected: [RejectionKey: UInt64] = [:]
    /// When the queue last went from empty to holding an input (monotonic nanoseconds); 0 while it is empty.
    var firstQueuedAt: UInt64 = 0
    /// When the first input of each pass handed out since `timeEndedPasses` was queued: they are timed together at
    /// the end of the round, with the one clock read the control server's writes take there anyway.
    private let ended = UnsafeMutableBufferPointer<UInt64>.allocate(capacity: 32)
    private var endedCount = 0

    deinit {
        ended.deallocate()
    }

    /// A pass whose first input was queued at `queuedAt` has handed out its replies.
    func passEnded(queuedAt: UInt64) {
        if endedCount == ended.count { timeEndedPasses(now: SystemProcess.monotonicNanoseconds()) }
        ended[endedCount] = queuedAt
        endedCount += 1
    }

    /// Whether passes wait for `timeEndedPasses`.
    var hasEndedPasses: Bool { endedCount > 0 }

    /// Counts the passes handed out since the last call as ended at `now`.
    func timeEndedPasses(now: UInt64) {
        for index in 0..<endedCount { passLatency.observe(since: ended[index], now: now) }
        endedCount = 0
    }

    /// Takes a committed pass's counts.
    func count(_ acceptedElsewhere: SourceCounts, rejected: [RejectionKey: UInt64]) {
        self.acceptedElsewhere.add(acceptedElsewhere)
        for (key, count) in rejected { self.rejected[key, default: 0] += count }
    }
}

/// What a rejection is counted by.
struct RejectionKey: Hashable, Sendable {
    var code: ErrorCode
    var source: EventSourceKind
}
