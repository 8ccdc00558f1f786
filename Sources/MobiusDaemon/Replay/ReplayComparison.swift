import MobiusJSON

/// Runs the current and the candidate update over the same journaled events and finds where they part: the first
/// event that one applies and the other rejects, whose effects differ, or after which the models differ.
///
/// Both start each run of events from the same model. Update plugins get the events in batches; when a difference
/// shows in a batch, its events up to there are asked again one at a time from the batch's start, so the event
/// named is the first whose model differs even where a batch only tells its last model. After a divergence the
/// candidate goes on from the current's model, so each divergence is an event on which the two disagree from the
/// same model, not every event after the first.
final class ReplayComparison {
    private let current: any ReplayUpdate
    private let candidate: any ReplayUpdate
    private let everyDivergence: Bool
    private let report: (ReplayDivergence) -> Void
    /// Events compared so far.
    private(set) var compared = 0
    /// The seqs of the divergences found so far.
    private(set) var divergences: [UInt64] = []
    /// Events the current update rejects, though the daemon applied each when it journaled it, and the first.
    private(set) var currentRejections = 0
    private(set) var firstCurrentRejection: (seq: UInt64, message: String)?
    /// Why the comparison stopped before the end of the range, if it did after a divergence.
    private(set) var stoppedBecause: String?
    private var pending: ArraySlice<ReplayEvent> = []
    /// The model both sides started `pending` from.
    private var pendingFrom: JSONValue = .null

    /// - Parameters:
    ///   - everyDivergence: go on after the first divergence (`--all`).
    ///   - report: called with each divergence as it is found.
    init(
        current: any ReplayUpdate, candidate: any ReplayUpdate, everyDivergence: Bool,
        report: @escaping (ReplayDivergence) -> Void
    ) {
        self.current = current
        self.candidate = candidate
        self.everyDivergence = everyDivergence
        self.report = report
    }

    /// Hands `events`, which follow the ones compared before, to both sides; `finish` compares what they did.
    func begin(_ events: [ReplayEvent]) {
        pending = events[...]
        pendingFrom = current.model
        beginBoth(pending, singly: false)
    }

    /// Compares the events `begin` handed over. Returns whether to go on: `false` once a divergence is found
    /// (without `everyDivergence`), or when the candidate cannot go on from the current's model.
    func finish() throws(ReplayFailure) -> Bool {
        var events = pending
        pending = []
        var before = pendingFrom
        while true {
            let mine = try current.finish()
            let theirs = try candidate.finish()
            guard let found = Self.firstDifference(mine, theirs) else {
                settle(events, mine)
                return true
            }
            var (at, divergence) = (found, (current: mine[found], candidate: theirs[found]))
            if (mine[...found] + theirs[...found]).contains(where: { $0.model == nil }) {
                (at, divergence) = try oneAtATime(events.prefix(found + 1), from: before)
            }
            let event = events[events.startIndex + at]
            settle(events.prefix(at + 1), Array(mine.prefix(at)) + [divergence.current])
            divergences.append(event.seq)
            report(ReplayDivergence(event: event, current: divergence.current, candidate: divergence.candidate))
            guard everyDivergence else { return false }
            // Known: a step found one at a time, or found where neither side's model was missing.
            before = divergence.current.model ?? current.model
            do {
                try candidate.reset(to: before)
                try current.reset(to: before)
            } catch {
                stoppedBecause = "\(error.description), so the comparison stops after seq \(event.seq)"
                return false
            }
            events = events.dropFirst(at + 1)
            guard !events.isEmpty else { return true }
            beginBoth(events, singly: false)
        }
    }

    /// Hands `events` to both sides, one that runs elsewhere first: it computes while the other does here.
    private func beginBoth(_ events: ArraySlice<ReplayEvent>, singly: Bool) {
        let sides = current.runsElsewhere || !candidate.runsElsewhere ? [current, candidate] : [candidate, current]
        for side in sides { side.begin(events, singly: singly) }
    }

    /// Asks both sides again for `events`, one at a time from `model`, and finds the first that differs.
    private func oneAtATime(
        _ events: ArraySlice<ReplayEvent>, from model: JSONValue
    ) throws(ReplayFailure)
        -> (Int, (current: ReplayStep, candidate: ReplayStep))
    {
        try current.reset(to: model)
        try candidate.reset(to: model)
        beginBoth(events, singly: true)
        let mine = try current.finish()
        let theirs = try candidate.finish()
        guard let at = Self.firstDifference(mine, theirs) else {
            let seqs = "\(events.first?.seq ?? 0)...\(events.last?.seq ?? 0)"
            throw ReplayFailure(
                "the updates answered seqs \(seqs) differently in a batch than one at a time: an update must be pure "
                    + "(the same model and event give the same result)")
        }
        return (at, (mine[at], theirs[at]))
    }

    /// The index of the first event the two did differently (both sides answer every event they are given).
    private static func firstDifference(_ mine: [ReplayStep], _ theirs: [ReplayStep]) -> Int? {
        mine.indices.first { $0 < theirs.count && mine[$0].differs(from: theirs[$0]) }
    }

    /// Counts events compared and the current's rejections among them.
    private func settle(_ events: ArraySlice<ReplayEvent>, _ steps: [ReplayStep]) {
        compared += events.count
        for (event, step) in zip(events, steps) {
            guard case .rejected(let message) = step.outcome else { continue }
            currentRejections += 1
            if firstCurrentRejection == nil { firstCurrentRejection = (event.seq, message) }
        }
    }
}

/// An event on which the two updates disagree, from the same model.
struct ReplayDivergence {
    let event: ReplayEvent
    /// What it did on each side; both models are known.
    let current: ReplayStep
    let candidate: ReplayStep
}
