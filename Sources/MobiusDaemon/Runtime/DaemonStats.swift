import MobiusSystem
import Synchronization

/// Counters updated from any thread (effect handlers run on others) and read by `status`.
final class DaemonStats: Sendable {
    /// Effects no handler took.
    let unhandledEffects = Atomic<UInt64>(0)
    /// Misuse the library reported (an effect matching two Swift routes, …): logged and counted, never a trap.
    let libraryErrors = Atomic<UInt64>(0)
    /// Events from sources other than clients (effect handlers, timers) that the app rejected, in its codec or its
    /// update; `status` reports them as `events.rejectedFromOtherSources`.
    let sourceEventsRejected = Atomic<UInt64>(0)
    /// Events from other sources that the app's codec refused before they reached a pass, by source (`metrics`
    /// counts them as `InvalidEvent`); a lock is fine on this path, which is one of errors.
    let undecodable = Mutex(SourceCounts())
    /// The daemon's resident set size as last sampled off the reactor thread (bytes).
    let residentBytes = Atomic<Int>(0)
    /// When `residentBytes` was last asked to be refreshed (monotonic nanoseconds).
    let residentSampleRequested = Atomic<UInt64>(0)
    /// When the daemon started (monotonic nanoseconds).
    let startedAt = SystemProcess.monotonicNanoseconds()

    /// Counts an event from `source` that the app's codec refused before it reached a pass.
    func rejectedUndecodable(from source: EventSourceKind) {
        sourceEventsRejected.add(1, ordering: .relaxed)
        undecodable.withLock { $0[source] += 1 }
    }
}
