import Synchronization

/// The replay the history thread is running now, if any: set there, read by `status` on the reactor thread.
final class ReplayActivity: Sendable {
    /// One replay under way.
    struct Running: Sendable {
        /// What asked: `model` or `log`.
        let request: String
        /// The seq whose model it computes.
        let target: UInt64
        /// The seq it started from (a snapshot's, or 0).
        let base: UInt64
        let progress: ReplayProgress
        /// When it started (monotonic nanoseconds).
        let started: UInt64
    }

    private let current = Mutex<Running?>(nil)

    func begin(_ running: Running) {
        current.withLock { $0 = running }
    }

    func end() {
        current.withLock { $0 = nil }
    }

    var running: Running? { current.withLock { $0 } }
}
