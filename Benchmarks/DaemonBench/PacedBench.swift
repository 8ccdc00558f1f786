import MobiusSystem
import MobiusTestSupport

/// Scenario 6: what an event costs the server at a realistic rate. One connection sends one event per slot of a
/// fixed period and waits for its reply before the next; the client sleeps to each slot's absolute deadline
/// (clock_nanosleep, no busy-waiting), and when a reply comes back after the next slot has begun, the next send
/// goes at the first slot still ahead. The server's CPU time and context switches are read from /proc around the
/// measured window, after a warm-up at the same pace.
enum PacedBench {
    struct Result {
        /// Events sent (and acknowledged) in the measured window.
        let events: Int
        /// Slots skipped because a reply came back late.
        let skippedSlots: Int
        let windowNanoseconds: UInt64
        /// Server CPU time (all threads) over the window.
        let cpuNanoseconds: Int64
        let cpuSource: ProcessUsage.CPUSource
        /// Voluntary context switches of the server's threads over the window: sleeps that needed a wake-up.
        let wakeUps: Int64
        /// Send to reply, per event, sorted.
        let latencies: [UInt64]

        var cpuMicrosecondsPerEvent: Double { Double(cpuNanoseconds) / 1000 / Double(events) }
        var cpuPercentOfCore: Double { Double(cpuNanoseconds) / Double(windowNanoseconds) * 100 }
        var wakeUpsPerEvent: Double { Double(wakeUps) / Double(events) }
        /// The share of the window's slots that got no event because the previous reply was still out.
        var skippedPercent: Double { Double(skippedSlots) / Double(events + skippedSlots) * 100 }
        var p50Microseconds: Double { Statistics.percentile(sorted: latencies, 0.50) / 1000 }
        var p99Microseconds: Double { Statistics.percentile(sorted: latencies, 0.99) / 1000 }
    }

    /// One row group of the report: the figures for one period.
    struct Metrics {
        var cpuPerEvent: Metric
        var cpuPercent: Metric
        var wakeUpsPerEvent: Metric
        var p50: Metric
        var p99: Metric
        var skipped: Metric

        /// - Parameter prefix: the row label (`6`; `7g` for the durable servers).
        init(periodMicroseconds: Int, prefix: String = "6") {
            let name = "\(prefix) every \(PacedBench.label(periodMicroseconds: periodMicroseconds)):"
            cpuPerEvent = Metric("\(name) CPU per event", unit: "µs", target: .ratioAtMost(1.5))
            cpuPercent = Metric("\(name) CPU", unit: "% of a core", target: .none)
            wakeUpsPerEvent = Metric("\(name) wake-ups per event", unit: "count", target: .none)
            p50 = Metric("\(name) ack p50", unit: "µs", target: .ratioAtMost(1.2))
            p99 = Metric("\(name) ack p99", unit: "µs", target: .ratioAtMost(1.5))
            skipped = Metric("\(name) slots skipped", unit: "%", target: .none)
        }

        mutating func record(_ result: Result, for kind: ServerKind) {
            cpuPerEvent.record(result.cpuMicrosecondsPerEvent, for: kind)
            cpuPercent.record(result.cpuPercentOfCore, for: kind)
            wakeUpsPerEvent.record(result.wakeUpsPerEvent, for: kind)
            p50.record(result.p50Microseconds, for: kind)
            p99.record(result.p99Microseconds, for: kind)
            skipped.record(result.skippedPercent, for: kind)
        }

        var all: [Metric] { [cpuPerEvent, cpuPercent, wakeUpsPerEvent, p50, p99, skipped] }
    }

    /// "1 ms", "200 µs".
    static func label(periodMicroseconds: Int) -> String {
        periodMicroseconds % 1000 == 0 ? "\(periodMicroseconds / 1000) ms" : "\(periodMicroseconds) µs"
    }

    /// Sends `warmUpEvents` events, then events for `seconds`, one per `periodMicroseconds`, to `server`.
    /// `event` replaces the kind's event (redis `INCR` for the durable servers).
    static func run(
        server: ServerProcess, periodMicroseconds: Int, seconds: Double, warmUpEvents: Int, event: [UInt8]? = nil
    ) throws(BenchError) -> Result {
        let kind = server.kind
        let event = event ?? kind.event
        let stream = try UnixStream.connect(path: server.socketPath)
        defer { stream.close() }
        let buffer = UnsafeMutableRawBufferPointer.allocate(byteCount: 4096, alignment: 64)
        defer { buffer.deallocate() }
        let period = UInt64(periodMicroseconds) * 1000
        var pacer = Pacer(period: period, start: SystemProcess.monotonicNanoseconds() + period)
        for _ in 0..<warmUpEvents {
            _ = try exchange(on: stream, kind: kind, event: event, at: pacer.next(), buffer: buffer)
            pacer.finished(at: SystemProcess.monotonicNanoseconds())
        }

        let before = try server.usage()
        let windowStart = SystemProcess.monotonicNanoseconds()
        let windowEnd = windowStart + UInt64(seconds * 1e9)
        pacer = Pacer(period: period, start: windowStart + period)
        var latencies: [UInt64] = []
        latencies.reserveCapacity(Int(seconds * 1e9) / Int(period) + 1)
        while pacer.upcoming < windowEnd {
            latencies.append(try exchange(on: stream, kind: kind, event: event, at: pacer.next(), buffer: buffer))
            pacer.finished(at: SystemProcess.monotonicNanoseconds())
        }
        // The window ends on the schedule, not at the last reply, so what the server does after the last ack
        // (watching for more input, say) is counted too.
        try BenchError.checking { () throws(SystemError) in try SystemClock.sleep(untilMonotonic: windowEnd) }
        let after = try server.usage()
        let windowNanoseconds = SystemProcess.monotonicNanoseconds() - windowStart
        guard !latencies.isEmpty else { throw BenchError("\(kind) paced: no event fit in \(seconds) s") }
        latencies.sort()
        return Result(
            events: latencies.count, skippedSlots: pacer.skipped, windowNanoseconds: windowNanoseconds,
            cpuNanoseconds: Int64(after.cpuNanoseconds) - Int64(before.cpuNanoseconds), cpuSource: after.cpuSource,
            wakeUps: Int64(after.voluntaryContextSwitches) - Int64(before.voluntaryContextSwitches),
            latencies: latencies)
    }

    /// Sleeps until `slot`, sends one event, waits for its one-line reply and checks it; returns send to reply in
    /// nanoseconds.
    private static func exchange(
        on stream: UnixStream, kind: ServerKind, event: [UInt8], at slot: UInt64,
        buffer: UnsafeMutableRawBufferPointer
    ) throws(BenchError) -> UInt64 {
        try BenchError.checking { () throws(SystemError) in try SystemClock.sleep(untilMonotonic: slot) }
        let sent = SystemProcess.monotonicNanoseconds()
        try stream.write(all: event)
        var received = 0
        var lines = 0
        while lines == 0 {
            let count = try stream.read(into: UnsafeMutableRawBufferPointer(rebasing: buffer[received...]))
            guard count > 0 else { throw BenchError("\(kind) closed the connection") }
            lines = LineCounter.count(UnsafeRawBufferPointer(rebasing: buffer[received..<(received + count)]))
            received += count
            guard received < buffer.count || lines > 0 else { throw BenchError("\(kind): reply too long") }
        }
        let latency = SystemProcess.monotonicNanoseconds() - sent
        let reply = UnsafeRawBufferPointer(rebasing: buffer[0..<received])
        guard lines == 1, reply.starts(with: kind.acknowledgement) else {
            throw BenchError("\(kind): unexpected reply to one event: \(String(decoding: reply, as: UTF8.self))")
        }
        return latency
    }

    /// The send schedule: slots `period` apart from `start`. A slot that has already begun when the previous
    /// exchange finished is skipped, so a late reply never causes a burst of catch-up sends.
    private struct Pacer {
        let period: UInt64
        /// The next slot to send in.
        private(set) var upcoming: UInt64
        private(set) var skipped = 0

        init(period: UInt64, start: UInt64) {
            self.period = period
            upcoming = start
        }

        /// Takes the upcoming slot.
        mutating func next() -> UInt64 {
            defer { upcoming += period }
            return upcoming
        }

        /// Moves past the slots that began before `now`.
        mutating func finished(at now: UInt64) {
            guard now >= upcoming else { return }
            let missed = (now - upcoming) / period + 1
            skipped += Int(missed)
            upcoming += missed * period
        }
    }
}
