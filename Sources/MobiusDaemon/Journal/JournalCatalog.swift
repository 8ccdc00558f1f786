import Synchronization

/// The journal's segment files and snapshots as they are now, shared by the writer (which changes it on the
/// journal thread or the reactor) and the readers of `log` (the read thread, the reactor).
final class JournalCatalog: Sendable {
    /// One segment file.
    struct Segment: Sendable, Equatable {
        let firstSeq: UInt64
        let path: String
        /// The seq of its last committed record (`firstSeq - 1` while it has none).
        var lastSeq: UInt64
        /// Its committed length in bytes (header included).
        var length: Int64
    }

    private struct State {
        var segments: [Segment] = []
        /// Seqs of the snapshots on disk, oldest first.
        var snapshots: [UInt64] = []
    }

    private let state = Mutex(State())

    init(segments: [Segment], snapshots: [UInt64]) {
        state.withLock {
            $0.segments = segments
            $0.snapshots = snapshots
        }
    }

    var segments: [Segment] { state.withLock { $0.segments } }
    var snapshots: [UInt64] { state.withLock { $0.snapshots } }

    /// The lowest seq a `log` reader can still get, or `nil` when no segment holds a record.
    var firstKeptSeq: UInt64? {
        state.withLock { state in state.segments.first(where: { $0.lastSeq >= $0.firstSeq })?.firstSeq }
    }

    /// Bytes of all segments.
    var journalBytes: Int64 { state.withLock { $0.segments.reduce(0) { $0 + $1.length } } }

    /// The segment holding `seq`, if any still does.
    func segment(containing seq: UInt64) -> Segment? {
        state.withLock { state in
            state.segments.last(where: { $0.firstSeq <= seq && seq <= $0.lastSeq })
        }
    }

    func update(_ body: (inout [Segment], inout [UInt64]) -> Void) {
        state.withLock { body(&$0.segments, &$0.snapshots) }
    }
}
