import MobiusSystem
import Synchronization

/// How far a long replay has got (recovery at start-up, `model {"at":N}`): the thread replaying counts the events it
/// has applied, other threads read the figures to report them.
final class ReplayProgress: Sendable {
    /// The events to replay in all (counted before the replay starts).
    let total: Int
    private let replayed = Atomic<Int>(0)

    init(total: Int) {
        self.total = total
    }

    /// `count` more events were replayed.
    func advance(by count: Int = 1) {
        replayed.add(count, ordering: .relaxed)
    }

    /// Events replayed so far.
    var done: Int { replayed.load(ordering: .relaxed) }

    /// `42% (420,000 of 1,000,000 events)`.
    var summary: String { ProgressLine.summary(done: done, total: total) }
}
