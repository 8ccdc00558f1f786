import MobiusSystem

/// `replay`'s progress line on a terminal: once a replay has run a second, one line on stderr, rewritten in place
/// at most five times a second, with the seq reached, events per second and the time left. Nothing when stderr is
/// not a terminal (a pipe, a file, the journal).
final class ReplayProgressLine {
    private let line: ProgressLine
    private let first: UInt64
    private let last: UInt64
    private let started = SystemProcess.monotonicNanoseconds()
    private var shownAt: UInt64 = 0

    static let quietNanoseconds: UInt64 = 1_000_000_000
    static let everyNanoseconds: UInt64 = 200_000_000

    /// Progress through seqs `first...last`, or `nil` when stderr is not a terminal.
    init?(first: UInt64, last: UInt64) {
        guard last >= first, let line = ProgressLine() else { return nil }
        self.line = line
        self.first = first
        self.last = last
    }

    /// The replay has handled every seq up to `seq`.
    func reached(_ seq: UInt64) {
        let now = SystemProcess.monotonicNanoseconds()
        let elapsed = now - started
        guard elapsed >= Self.quietNanoseconds, now - shownAt >= Self.everyNanoseconds else { return }
        shownAt = now
        let done = seq >= first ? seq - first + 1 : 0
        let total = last - first + 1
        let rate = Double(done) / (Double(elapsed) / 1e9)
        let left = rate > 0 ? Double(total - min(done, total)) / rate : 0
        let percent = total > 0 ? done * 100 / total : 100
        line.show("replay: seq \(seq) of \(last) (\(percent)%), \(Int(rate)) events/s, ETA \(Self.duration(left))")
    }

    /// Takes the line away, before other output and at the end.
    func clear() {
        line.clear()
    }

    /// `42 s`, `3 min 5 s`, `2 h 10 min`.
    static func duration(_ seconds: Double) -> String {
        // Bounded: a stalled side makes the estimate grow without limit.
        let whole = Int(min(max(seconds, 0), 3_600_000).rounded(.up))
        if whole < 60 { return "\(whole) s" }
        if whole < 3600 { return "\(whole / 60) min \(whole % 60) s" }
        return "\(whole / 3600) h \(whole / 60 % 60) min"
    }
}
