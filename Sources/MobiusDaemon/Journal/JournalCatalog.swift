import MobiusJSON
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
        /// Where intact records start again after damage inside the segment, in seq order (found at start-up).
        var restarts: [JournalReader.Cursor] = []

        /// Where a reader of `seq` starts: the last restart at or before it, else the first record.
        func start(for seq: UInt64) -> JournalReader.Cursor {
            restarts.last { $0.seq <= seq }
                ?? JournalReader.Cursor(path: path, offset: Int64(JournalSegment.headerSize), seq: firstSeq)
        }
    }

    /// Seqs the journal should hold but cannot serve: damaged records, or a segment file that is missing or
    /// unreadable. Found at start-up (behind the newest snapshot: damage after it stops start-up) or by a reader.
    struct Damage: Sendable, Equatable {
        let firstSeq: UInt64
        let lastSeq: UInt64
        /// What is wrong, naming the file and the byte offset.
        let problem: String

        /// An entry of `status`'s `state.damaged`.
        var statusValue: JSONValue {
            .object(
                JSONObject([
                    ("from", .number(JSONNumber(firstSeq))), ("through", .number(JSONNumber(lastSeq))),
                    ("problem", .string(problem)),
                ]))
        }
    }

    private struct State {
        var segments: [Segment] = []
        /// Seqs of the snapshots on disk, oldest first.
        var snapshots: [UInt64] = []
        /// In seq order, not overlapping.
        var damaged: [Damage] = []
    }

    private let state = Mutex(State())

    init(segments: [Segment], snapshots: [UInt64], damaged: [Damage] = []) {
        state.withLock {
            $0.segments = segments
            $0.snapshots = snapshots
            $0.damaged = damaged
        }
    }

    var segments: [Segment] { state.withLock { $0.segments } }
    var snapshots: [UInt64] { state.withLock { $0.snapshots } }
    var damaged: [Damage] { state.withLock { $0.damaged } }

    /// The lowest seq a `log` reader can still get (or is told is damaged), or `nil` when no segment holds a record.
    var firstKeptSeq: UInt64? {
        state.withLock { state in
            let kept = state.segments.first(where: { $0.lastSeq >= $0.firstSeq })?.firstSeq
            guard let damaged = state.damaged.first?.firstSeq else { return kept }
            return min(kept ?? damaged, damaged)
        }
    }

    /// The seqs a replay of past models can start from, oldest first: 0 (the app's initial model) while the journal
    /// still holds seq 1, then the snapshots on disk. Compaction keeps the records after the oldest snapshot.
    var replayBases: [UInt64] {
        state.withLock { state in
            (state.segments.first?.firstSeq == 1 ? [0] : []) + state.snapshots.filter { $0 > 0 }
        }
    }

    /// The first damaged range that holds any of `seqs`.
    func damage(in seqs: ClosedRange<UInt64>) -> Damage? {
        state.withLock { state in
            state.damaged.first { $0.lastSeq >= seqs.lowerBound && $0.firstSeq <= seqs.upperBound }
        }
    }

    /// Damage a reader found after start-up: from `damage.firstSeq` on, the rest of its segment.
    func noteDamage(_ damage: Damage) {
        state.withLock { state in
            guard !state.damaged.contains(where: { $0.lastSeq >= damage.firstSeq && $0.firstSeq <= damage.lastSeq })
            else { return }
            state.damaged.append(damage)
            state.damaged.sort { $0.firstSeq < $1.firstSeq }
        }
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

    /// Compaction let the history up to `seq` go: damage there is no longer anyone's concern.
    func forgetDamage(through seq: UInt64) {
        state.withLock { state in state.damaged.removeAll { $0.lastSeq <= seq } }
    }
}
