/// The text formats `metrics` writes (docs/protocol.md, "Metrics"). They differ only in how a counter is named:
/// OpenMetrics declares the family `x` and writes its sample as `x_total`; the Prometheus text format (0.0.4), which
/// node_exporter's textfile collector and `promtool check metrics` read, declares `x_total` itself.
enum MetricsFormat: String, Sendable, CaseIterable {
    /// OpenMetrics 1.0, with `# UNIT` lines (the default).
    case openMetrics = "openmetrics"
    /// The Prometheus text format 0.0.4.
    case prometheus
}
