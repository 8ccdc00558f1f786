import Testing

@testable import MobiusDaemon

/// The pieces of `metrics` without a daemon: the fixed buckets, and the text in both formats.
@Suite struct MetricsTextTests {
    @Test func anObservationGoesInTheFirstBucketWhoseBoundItDoesNotExceed() {
        let histogram = LatencyHistogram()
        histogram.observe(10_000)  // exactly 10 µs: le="1e-05"
        histogram.observe(10_001)  // just over: the 25 µs bucket
        histogram.observe(20_000_000_000)  // past 10 s: +Inf
        let sample = histogram.sample
        #expect(sample.counts.count == LatencyHistogram.bounds.count + 1)
        #expect(sample.counts[0] == 1 && sample.counts[1] == 1 && sample.counts.last == 1)
        #expect(sample.count == 3)
        #expect(sample.sumNanoseconds == 20_000_020_001)
    }

    @Test func countersAreNamedAsEachFormatWantsThem() {
        for (format, declared) in [(MetricsFormat.openMetrics, "x_events"), (.prometheus, "x_events_total")] {
            var text = MetricsText(format: format)
            text.counter("x_events", help: "Events.", [([("source", "client")], 3)])
            let lines = String(decoding: text.finish(), as: UTF8.self).split(separator: "\n").map(String.init)
            #expect(lines.contains("# TYPE \(declared) counter"), "\(format): \(lines)")
            #expect(lines.contains(#"x_events_total{source="client"} 3"#), "\(format): \(lines)")
            #expect(lines.last == "# EOF")
        }
    }

    @Test func unitsAreOnlyInOpenMetrics() {
        var open = MetricsText(format: .openMetrics)
        open.gauge("x_bytes", unit: "bytes", help: "Size.", 5)
        var prometheus = MetricsText(format: .prometheus)
        prometheus.gauge("x_bytes", unit: "bytes", help: "Size.", 5)
        #expect(String(decoding: open.finish(), as: UTF8.self).contains("# UNIT x_bytes bytes\n"))
        #expect(!String(decoding: prometheus.finish(), as: UTF8.self).contains("# UNIT"))
    }

    @Test func labelValuesAreEscaped() {
        var text = MetricsText(format: .openMetrics)
        text.gauge("x", help: "X.", [([("plugin", "a\"b\\c\nd")], "1")])
        #expect(String(decoding: text.finish(), as: UTF8.self).contains(#"x{plugin="a\"b\\c\nd"} 1"#))
    }

    @Test func histogramBucketsAreCumulativeAndEndInTheCount() {
        let histogram = LatencyHistogram()
        for nanoseconds: UInt64 in [5_000, 30_000, 30_000, 2_000_000] { histogram.observe(nanoseconds) }
        var text = MetricsText(format: .openMetrics)
        text.histogram("x_seconds", help: "X.", histogram.sample)
        let lines = String(decoding: text.finish(), as: UTF8.self).split(separator: "\n").map(String.init)
        #expect(lines.contains(#"x_seconds_bucket{le="1e-05"} 1"#), "\(lines)")
        #expect(lines.contains(#"x_seconds_bucket{le="5e-05"} 3"#), "\(lines)")
        #expect(lines.contains(#"x_seconds_bucket{le="0.0025"} 4"#), "\(lines)")
        #expect(lines.contains(#"x_seconds_bucket{le="+Inf"} 4"#), "\(lines)")
        #expect(lines.contains("x_seconds_count 4"), "\(lines)")
        #expect(lines.contains("x_seconds_sum 0.002065"), "\(lines)")
        #expect(lines.contains("# UNIT x_seconds seconds"), "\(lines)")
    }
}
