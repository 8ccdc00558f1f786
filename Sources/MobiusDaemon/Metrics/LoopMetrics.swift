/// The loop's counters and latencies for `metrics` (docs/protocol.md, "Metrics"), kept on the reactor thread.
///
/// A pass counts into its `PassWork` as it goes (only events from sources other than clients, and rejections), and
/// the loop adds those counts here once the pass is committed, so an undone pass counts as what it became.
final class LoopMetrics {
    /// From a pass's first input queued to its replies handed to their connections, per pass: how long every
    /// reply of the pass, acks included, waited in the daemon at most.
    let passLatency = LatencyHistogram()
    /// The commit hook's time per pass that the journal writes (not with `--ephemeral`).
    let commitLatency = LatencyHistogram()
    /// Applied events from sources other than clients, by source; clients' are the rest of `LoopState.accepted`.
    private(set) var acceptedElsewhere = SourceCounts()
    /// Rejected events and event lines, by error code and source.
    private(set) var rejected: [RejectionKey: UInt64] = [:]
    /// When the queue last went from empty to holding an input (monotonic nanoseconds); 0 while it is empty.
    var firstQueuedAt: UInt64 = 0

    /// Takes a committed pass's counts.
    func count(_ counts: PassCounts) {
        acceptedElsewhere.add(counts.acceptedElsewhere)
        for (key, count) in counts.rejected { rejected[key, default: 0] += count }
    }
}

/// What a rejection is counted by.
struct RejectionKey: Hashable, Sendable {
    var code: ErrorCode
    var source: EventSourceKind
}
