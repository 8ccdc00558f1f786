/// What `top` shows, computed from two `metrics` replies a second or so apart (rates and quantiles over the time
/// between them).
struct TopFigures: Equatable {
    /// One plugin's row.
    struct Plugin: Equatable {
        var name: String
        var state: String
        var inFlight: Double
        var handled: Double
        var failed: Double
        var restarts: Double
    }

    var app: String
    var version: String
    var seq: Double
    var uptime: Double
    /// Events applied per second since the previous reply; `nil` for the first.
    var eventsPerSecond: Double?
    var accepted: Double
    var rejected: Double
    /// Pass latency quantiles (seconds) over the passes since the previous reply (since the start for the first);
    /// `nil` when there were none; infinity when past the last bucket.
    var ackP50: Double?
    var ackP99: Double?
    var queueDepth: Double
    var queueCapacity: Double
    var subscribers: Double
    var connections: Double
    /// `nil` when the daemon keeps no journal (`--ephemeral`).
    var journalBytes: Double?
    var journalSegments: Double?
    /// `nil` when there is no snapshot.
    var snapshotAge: Double?
    var residentBytes: Double
    var plugins: [Plugin]

    /// The pass latency histogram's name in `metrics`.
    static let latency = "mobiusd_pass_latency_seconds"

    init(_ scrape: MetricsScrape, previous: MetricsScrape?, seconds: Double) {
        let info = scrape.samples("mobiusd_info").first?.labels ?? [:]
        app = info["app"] ?? "?"
        version = info["version"] ?? "?"
        seq = scrape.value("mobiusd_seq") ?? 0
        uptime = scrape.value("mobiusd_uptime_seconds") ?? 0
        accepted = scrape.sum("mobiusd_events_accepted_total")
        rejected = scrape.sum("mobiusd_events_rejected_total")
        if let previous, seconds > 0 {
            eventsPerSecond = max(0, accepted - previous.sum("mobiusd_events_accepted_total")) / seconds
        }
        var buckets = scrape.buckets(Self.latency)
        if let before = previous?.buckets(Self.latency), before.count == buckets.count,
            let last = buckets.last, let lastBefore = before.last, last.count > lastBefore.count
        {
            buckets = zip(buckets, before).map { ($0.bound, $0.count - $1.count) }
        }
        ackP50 = Self.quantile(0.5, buckets)
        ackP99 = Self.quantile(0.99, buckets)
        queueDepth = scrape.sum("mobiusd_queue_depth")
        queueCapacity = scrape.value("mobiusd_queue_capacity") ?? 0
        subscribers = scrape.value("mobiusd_subscribers") ?? 0
        connections = scrape.value("mobiusd_connections") ?? 0
        journalBytes = scrape.value("mobiusd_journal_bytes")
        journalSegments = scrape.value("mobiusd_journal_segments")
        snapshotAge = scrape.value("mobiusd_snapshot_age_seconds")
        residentBytes = scrape.value("process_resident_memory_bytes") ?? 0
        plugins = Self.plugins(scrape)
    }

    private static func plugins(_ scrape: MetricsScrape) -> [Plugin] {
        var names: [String] = []
        for sample in scrape.samples("mobiusd_plugin_state") {
            if let name = sample.labels["plugin"], !names.contains(name) { names.append(name) }
        }
        return names.map { name in
            let state =
                scrape.samples("mobiusd_plugin_state").first { $0.labels["plugin"] == name && $0.value == 1 }?
                .labels["state"] ?? "?"
            let outcomes = scrape.samples("mobiusd_plugin_effects_total").filter { $0.labels["plugin"] == name }
            let handled = outcomes.filter { $0.labels["outcome"] == "handled" }.reduce(0) { $0 + $1.value }
            let failed = outcomes.filter { $0.labels["outcome"] != "handled" }.reduce(0) { $0 + $1.value }
            return Plugin(
                name: name, state: state,
                inFlight: scrape.value("mobiusd_plugin_effects_in_flight", ["plugin": name]) ?? 0,
                handled: handled, failed: failed,
                restarts: scrape.value("mobiusd_plugin_restarts_total", ["plugin": name]) ?? 0)
        }
    }

    /// The `q` quantile of a histogram given as cumulative counts per upper bound, interpolated within its bucket
    /// (as Prometheus' `histogram_quantile`); `nil` without observations, infinity past the last finite bound.
    static func quantile(_ q: Double, _ buckets: [(bound: Double, count: Double)]) -> Double? {
        guard let total = buckets.last?.count, total > 0 else { return nil }
        let rank = q * total
        var lower = 0.0
        var below = 0.0
        for (bound, count) in buckets {
            if count >= rank {
                guard bound.isFinite else { return .infinity }
                let inBucket = count - below
                return inBucket > 0 ? lower + (bound - lower) * (rank - below) / inBucket : bound
            }
            lower = bound
            below = count
        }
        return .infinity
    }
}
