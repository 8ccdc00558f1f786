/// One reported figure: per-run samples for both servers, and how the target is judged.
struct Metric {
    enum Target {
        /// mobiusd/redis (median of per-run ratios) at least this.
        case ratioAtLeast(Double)
        /// mobiusd/redis (median of per-run ratios) at most this.
        case ratioAtMost(Double)
        /// mobiusd's median at most this, in the metric's unit.
        case mobiusdAtMost(Double)
        /// Reported for context, no target.
        case none
    }

    let name: String
    let unit: String
    let target: Target
    var mobiusd: [Double] = []
    var redis: [Double] = []

    init(_ name: String, unit: String, target: Target) {
        self.name = name
        self.unit = unit
        self.target = target
    }

    /// Adds one run's figure for `kind`.
    mutating func record(_ value: Double, for kind: ServerKind) {
        switch kind {
        case .mobiusd: mobiusd.append(value)
        case .redis: redis.append(value)
        }
    }

    var mobiusdMedian: Double { Statistics.median(mobiusd) }
    var redisMedian: Double { Statistics.median(redis) }

    /// The median over runs of mobiusd/redis, each ratio taken within one run.
    var ratio: Double {
        Statistics.median(zip(mobiusd, redis).map { $0 / $1 })
    }

    var targetText: String {
        switch target {
        case .ratioAtLeast(let value): "≥ \(Format.decimal(value, 1))× redis"
        case .ratioAtMost(let value): value == 1 ? "≤ redis" : "≤ \(Format.decimal(value, 1))× redis"
        case .mobiusdAtMost(let value): value == 0 ? "0 \(unit)" : "≤ \(Format.decimal(value, 0)) \(unit)"
        case .none: "-"
        }
    }

    /// Whether the target is met; `nil` when there is none.
    var met: Bool? {
        switch target {
        case .ratioAtLeast(let value): ratio >= value
        case .ratioAtMost(let value): ratio <= value
        case .mobiusdAtMost(let value): mobiusdMedian <= value
        case .none: nil
        }
    }
}
