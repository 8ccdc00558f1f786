import MobiusJSON

/// The readable table and the machine-readable JSON lines (`{"bench":"mobiusd-daemon",...}`, one per metric).
enum Report {
    static func printTable(_ metrics: [Metric], runs: Int) {
        let widths = [44, 13, 13, 8, 14, 5]
        let header = ["scenario", "mobiusd", "redis", "ratio", "target", "met?"]
        print("medians over \(runs) runs; ratio = median of per-run mobiusd/redis")
        print(zip(header, widths).enumerated().map { Format.pad($1.0, $1.1, right: $0 > 0) }.joined(separator: " "))
        for metric in metrics {
            let met = metric.met.map { $0 ? "yes" : "NO" } ?? "-"
            let cells = [
                "\(metric.name) (\(metric.unit))", Format.figure(metric.mobiusdMedian),
                Format.figure(metric.redisMedian),
                metric.ratio.isFinite ? Format.decimal(metric.ratio, 2) + "×" : "-", metric.targetText, met,
            ]
            print(zip(cells, widths).enumerated().map { Format.pad($1.0, $1.1, right: $0 > 0) }.joined(separator: " "))
        }
    }

    static func printJSONLines(_ metrics: [Metric], runs: Int, load: String) {
        for metric in metrics {
            var members: [(String, JSONValue)] = [
                ("bench", .string("mobiusd-daemon")), ("metric", .string(metric.name)), ("unit", .string(metric.unit)),
                ("mobiusd", number(metric.mobiusdMedian)), ("redis", number(metric.redisMedian)),
                ("ratio", number(metric.ratio, places: 3)), ("target", .string(metric.targetText)),
            ]
            members.append(("met", metric.met.map(JSONValue.bool) ?? .null))
            members.append(("runs", .number(JSONNumber(runs))))
            members.append(("mobiusdRuns", .array(metric.mobiusd.map { number($0) })))
            members.append(("redisRuns", .array(metric.redis.map { number($0) })))
            members.append(("load", .string(load)))
            print(JSONValue.object(JSONObject(members)).description)
        }
    }

    static func printJSONLine(_ members: [(String, JSONValue)]) {
        print(JSONValue.object(JSONObject([("bench", JSONValue.string("mobiusd-daemon"))] + members)).description)
    }

    /// A JSON number rounded to `places` decimals (null when not finite).
    static func number(_ value: Double, places: Int = 1) -> JSONValue {
        var scale = 1.0
        for _ in 0..<places { scale *= 10 }
        guard value.isFinite, let number = JSONNumber((value * scale).rounded() / scale) else { return .null }
        return .number(number)
    }
}
