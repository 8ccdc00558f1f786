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
    var summary: String { Self.summary(done: done, total: total) }

    /// `42% (420,000 of 1,000,000 events)`; a count past the total (a journal that grew after it was counted) shows
    /// as its own total.
    static func summary(done: Int, total: Int) -> String {
        let of = max(done, total)
        let percent = of == 0 ? 100 : done * 100 / of
        return "\(percent)% (\(grouped(done)) of \(grouped(of)) events)"
    }

    /// `1000000` as `1,000,000`.
    static func grouped(_ value: Int) -> String {
        let digits = Array(String(value.magnitude))
        var text = value < 0 ? "-" : ""
        for (index, digit) in digits.enumerated() {
            if index > 0 && (digits.count - index) % 3 == 0 { text.append(",") }
            text.append(digit)
        }
        return text
    }
}
