import MobiusSystem
import Synchronization

/// Counters both daemon threads update and `status` reads.
final class DaemonStats: Sendable {
    /// Open client connections.
    let connections = Atomic<Int>(0)
    /// Events applied.
    let accepted = Atomic<UInt64>(0)
    /// Lines that were or tried to be events and were not applied.
    let rejected = Atomic<UInt64>(0)
    /// Effects no handler took.
    let unhandledEffects = Atomic<UInt64>(0)
    /// When the daemon started (monotonic nanoseconds).
    let startedAt = SystemProcess.monotonicNanoseconds()

    func countRejected() {
        rejected.add(1, ordering: .relaxed)
    }
}
