/// The scenario groups `--scenarios` selects, in the order a run measures them. README.md numbers them.
enum Scenario: String, CaseIterable, Sendable {
    /// 5: idle RSS, spawn to accepting, and CPU and wake-ups while idle, right after start-up.
    case idle
    /// 6: one event per slot at each `--pacings` period, awaiting each ack; CPU per event and ack latency.
    case paced
    /// 1 and 2: pipelined ingest with replies off and on.
    case ingest
    /// 3: one event at a time, back to back.
    case roundTrip = "round-trip"
    /// 4: 1,000 subscribers see each event.
    case fanOut = "fan-out"
    /// 7 and 8: durable ingest (fsync always) against redis AOF (`appendfsync always`, INCR), and recovery of
    /// a journal of `--recovery-events` events.
    case durable

    /// Parses a comma-separated list such as `paced,idle` (`all` for every scenario).
    static func parse(_ list: String) throws(BenchError) -> Set<Scenario> {
        var selected: Set<Scenario> = []
        for name in list.split(separator: ",").map({ $0.trimmingSpaces }) where !name.isEmpty {
            if name == "all" { return Set(allCases) }
            guard let scenario = Scenario(rawValue: name) else {
                throw BenchError(
                    "unknown scenario \(name); choose from \(allCases.map(\.rawValue).joined(separator: ", ")), all")
            }
            selected.insert(scenario)
        }
        guard !selected.isEmpty else { throw BenchError("--scenarios needs at least one scenario") }
        return selected
    }
}

extension Substring {
    fileprivate var trimmingSpaces: String {
        String(drop { $0 == " " }.reversed().drop { $0 == " " }.reversed())
    }
}
