/// Every figure `metrics` reports, copied on the reactor thread in one go so that the text is built on another
/// (`MetricsExposition`).
struct MetricsSample: Sendable {
    var app: String
    var version: String
    var epoch: String
    /// The last applied seq.
    var seq: UInt64
    var uptimeSeconds: Double
    /// Applied events by source.
    var accepted: SourceCounts
    /// Rejected events and event lines by code and source.
    var rejected: [RejectionKey: UInt64]
    var passLatency: HistogramSample
    var commitLatency: HistogramSample
    var fdatasyncLatency: HistogramSample
    /// Inputs waiting for a pass, by source.
    var queueDepths: SourceCounts
    var queueCapacity: Int
    /// Events inboxes refused because they were full, by source.
    var droppedByInboxes: SourceCounts
    var subscribers: Int
    var monitors: Int
    var connections: Int
    var unhandledEffects: UInt64
    var plugins: [PluginSample]
    /// The journal's figures; `nil` with `--ephemeral`.
    var journal: JournalSample?
    /// The resident set size in bytes, read from /proc when the text is built.
    var residentBytes: Int = 0
}

/// One plugin's figures in `MetricsSample`.
struct PluginSample: Sendable {
    var name: String
    var state: PluginState
    var inFlight: Int
    var queued: Int
    var handled: UInt64
    var failures: [PluginFailure: UInt64]
    var restarts: UInt64
}

/// The journal's figures in `MetricsSample`.
struct JournalSample: Sendable {
    var bytes: Int64
    var segments: Int
    var storageFailures: UInt64
    /// The newest snapshot's seq and age in seconds, or `nil` when there is none.
    var snapshot: (seq: UInt64, ageSeconds: Double)?
}
