import MobiusJSON

/// The text `replay` prints on stdout: what it compares, each divergence (the event, both outcomes and models, a
/// diff of the models by JSON Pointer), and a summary line. JSON is shown compact, long values cut short, and any
/// control character escaped, so a journal cannot write escape sequences to the terminal.
enum ReplayReport {
    /// The longest model, event or effect list shown whole; a diff's values are cut shorter.
    static let maxShownBytes = 2048
    static let maxDiffValueBytes = 200

    /// What is compared: the state directory, the range, and both sides.
    static func header(
        directory: String, epoch: String, range: ClosedRange<UInt64>?, start: String, current: String,
        candidate: String
    ) -> String {
        let seqs = range.map { "\(Self.seqs($0)), \(events(count($0)))" } ?? "no events"
        return """
            replay of \(directory) (epoch \(epoch.isEmpty ? "none yet" : epoch)): \(seqs)
              current:   \(current)
              candidate: \(candidate)
              start:     \(start)

            """
    }

    /// One divergence, with a blank line before it.
    static func divergence(_ divergence: ReplayDivergence) -> String {
        let event = divergence.event
        let time = RFC3339.format(nanosecondsSince1970: event.time, fractionDigits: 3)
        var text = "\nseq \(event.seq) (\(time)): \(shown(event.json, maxShownBytes))\n"
        text += side("current:  ", divergence.current)
        text += side("candidate:", divergence.candidate)
        let (mine, theirs) = (divergence.current.model ?? .null, divergence.candidate.model ?? .null)
        guard mine != theirs else { return text + "  the models are the same; \(difference(divergence))\n" }
        let diff = ModelDiff(from: mine, to: theirs)
        text += "  model diff, current -> candidate (\(diff.count) \(diff.count == 1 ? "change" : "changes")):\n"
        for change in diff.changes {
            switch change {
            case .added(let pointer, let value):
                text += "    added   \(place(pointer)): \(shown(value, maxDiffValueBytes))\n"
            case .removed(let pointer, let value):
                text += "    removed \(place(pointer)): \(shown(value, maxDiffValueBytes))\n"
            case .changed(let pointer, let from, let to):
                text +=
                    "    changed \(place(pointer)): \(shown(from, maxDiffValueBytes)) -> "
                    + "\(shown(to, maxDiffValueBytes))\n"
            }
        }
        if diff.count > diff.changes.count { text += "    … and \(diff.count - diff.changes.count) more\n" }
        return text
    }

    /// The last line: whether they agree, and on how much.
    static func summary(
        range: ClosedRange<UInt64>?, comparison: ReplayComparison, everyDivergence: Bool,
        tornTail: (lastSeq: UInt64, what: String)? = nil
    ) -> String {
        var text = "\n"
        let found = comparison.divergences
        // Said whatever the outcome: the events after the torn write are not in the range.
        let torn =
            tornTail.map {
                "Note: the journal ends at seq \($0.lastSeq): \(escaped($0.what)); what follows is a write cut short "
                    + "(or one a running daemon has under way), which the daemon's recovery cuts off, so the replay "
                    + "ends there too.\n"
            } ?? ""
        guard let range else {
            return text + "Nothing to compare: no journaled events in the range.\n" + torn
        }
        let seqs = Self.seqs(range)
        if found.isEmpty {
            let every = count(range) == 1 ? "the one event" : "all \(events(count(range)))"
            text += "The two updates agree on \(every) (\(seqs)).\n"
        } else if everyDivergence {
            let listed = found.prefix(20).map(String.init).joined(separator: ", ") + (found.count > 20 ? ", …" : "")
            let noun = found.count == 1 ? "divergence" : "divergences"
            let at = found.count == 1 ? "seq" : "seqs"
            text += "\(found.count) \(noun) in \(events(UInt64(comparison.compared))) of \(seqs), at \(at) \(listed).\n"
        } else {
            text += "The two updates differ at seq \(found[0]) (the first of \(seqs); --all lists every divergence).\n"
        }
        if let stopped = comparison.stoppedBecause { text += "Stopped early: \(stopped).\n" }
        if let first = comparison.firstCurrentRejection {
            text +=
                "Note: the current update rejects \(comparison.currentRejections) of these events, though the "
                + "daemon applied each when it journaled it (the first: seq \(first.seq), \(escaped(first.message))): "
                + "the journal was written by another update.\n"
        }
        return text + torn
    }

    private static func count(_ range: ClosedRange<UInt64>) -> UInt64 {
        range.upperBound - range.lowerBound + 1
    }

    /// `seq 4` or `seqs 1-5`.
    private static func seqs(_ range: ClosedRange<UInt64>) -> String {
        range.lowerBound == range.upperBound
            ? "seq \(range.lowerBound)" : "seqs \(range.lowerBound)-\(range.upperBound)"
    }

    /// `1 event` or `5 events`.
    private static func events(_ count: UInt64) -> String {
        count == 1 ? "1 event" : "\(count) events"
    }

    private static func side(_ name: String, _ step: ReplayStep) -> String {
        let outcome: String
        switch step.outcome {
        case .applied(let effects): outcome = "applied; effects \(shown(.array(effects), maxShownBytes))"
        case .rejected(let message): outcome = "rejected: \(escaped(message))"
        }
        return "  \(name) \(outcome)\n             model \(shown(step.model ?? .null, maxShownBytes))\n"
    }

    /// What differs when the models do not: the effects, or which side applies the event.
    private static func difference(_ divergence: ReplayDivergence) -> String {
        switch (divergence.current.outcome, divergence.candidate.outcome) {
        case (.applied, .rejected): return "the current applies the event, the candidate rejects it"
        case (.rejected, .applied): return "the current rejects the event, the candidate applies it"
        default: return "the effects differ"
        }
    }

    /// A pointer as written in the diff: `(the whole model)` for the empty one.
    private static func place(_ pointer: JSONPointer) -> String {
        pointer.tokens.isEmpty ? "(the whole model)" : escaped(pointer.description)
    }

    /// Compact JSON, cut at `limit` bytes (with how long it is), control characters escaped.
    static func shown(_ value: JSONValue, _ limit: Int) -> String {
        let bytes = value.encoded()
        guard bytes.count > limit else { return escaped(String(decoding: bytes, as: UTF8.self)) }
        return escaped(String(decoding: bytes.prefix(limit), as: UTF8.self)) + "… (\(bytes.count) bytes)"
    }

    private static func escaped(_ text: String) -> String {
        DaemonLog.escaped(text)
    }
}
