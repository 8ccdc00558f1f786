import Testing

@testable import mobiusctl

/// What `top` computes from two `metrics` replies, without a daemon.
@Suite struct TopFiguresTests {
    private func scrape(_ text: String) -> MetricsScrape {
        MetricsScrape(lines: text.split(separator: "\n").map { Array($0.utf8)[...] })
    }

    private func histogram(_ counts: [Int], accepted: Int) -> String {
        let bounds = ["0.001", "0.01", "+Inf"]
        var cumulative = 0
        var lines = ["mobiusd_events_accepted_total{source=\"client\"} \(accepted)"]
        for (bound, count) in zip(bounds, counts) {
            cumulative += count
            lines.append("mobiusd_pass_latency_seconds_bucket{le=\"\(bound)\"} \(cumulative)")
        }
        return lines.joined(separator: "\n")
    }

    @Test func samplesAreParsedWithEscapedLabels() {
        let parsed = scrape(
            """
            # TYPE mobiusd_info gauge
            mobiusd_info{app="a\\"b",version="1",epoch="e"} 1
            mobiusd_seq 42
            bad line
            """)
        #expect(parsed.samples("mobiusd_info").first?.labels["app"] == "a\"b")
        #expect(parsed.value("mobiusd_seq") == 42)
        #expect(parsed.series.count == 2)
    }

    @Test func quantilesInterpolateWithinTheirBucket() {
        let buckets: [(bound: Double, count: Double)] = [(0.001, 50), (0.01, 100), (.infinity, 100)]
        #expect(TopFigures.quantile(0.5, buckets) == 0.001)
        #expect(abs((TopFigures.quantile(0.99, buckets) ?? 0) - 0.00982) < 1e-9)
        #expect(TopFigures.quantile(0.5, [(0.001, 0), (.infinity, 0)]) == nil)
        #expect(TopFigures.quantile(0.99, [(0.001, 1), (.infinity, 2)]) == .infinity)
    }

    @Test func ratesAndQuantilesAreOverTheTimeBetweenTwoReplies() {
        let before = scrape(histogram([100, 0, 0], accepted: 10))
        let now = scrape(histogram([100, 10, 0], accepted: 30))
        let figures = TopFigures(now, previous: before, seconds: 2)
        #expect(figures.eventsPerSecond == 10)
        // Only the ten passes since `before`, all between 1 and 10 ms.
        #expect((figures.ackP50 ?? 0) > 0.001 && (figures.ackP50 ?? 0) < 0.01)
        let first = TopFigures(now, previous: nil, seconds: 0)
        #expect(first.eventsPerSecond == nil)
        #expect((first.ackP50 ?? 1) <= 0.001, "since the start for the first reply")
    }

    @Test func numbersAreFormattedForPeople() {
        #expect(TopScreen.latency(0.000042) == "42 µs")
        #expect(TopScreen.latency(0.00125) == "1.25 ms")
        #expect(TopScreen.latency(2.5) == "2.50 s")
        #expect(TopScreen.latency(.infinity) == "> 10 s")
        #expect(TopScreen.latency(nil) == "–")
        #expect(TopScreen.bytes(512) == "512 B")
        #expect(TopScreen.bytes(4.2 * 1_048_576) == "4.2 MiB")
        #expect(TopScreen.fixed(0.05, 1) == "0.1")
        #expect(TopScreen.fixed(-1.25, 1) == "-1.3")
    }
}
