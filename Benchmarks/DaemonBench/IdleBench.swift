import MobiusSystem
import MobiusTestSupport

/// Scenario 5: what a freshly started server costs while nobody talks to it. Start-up time comes from
/// `ServerProcess.start`; RSS is read 200 ms after the server accepted its first connection; then CPU time and
/// voluntary context switches (wake-ups) of all its threads are read from /proc across an idle window. Both
/// servers idle side by side during the same window.
enum IdleBench {
    /// The report rows of this scenario.
    struct Metrics {
        var rss = Metric("5 idle RSS", unit: "MB", target: .mobiusdAtMost(12))
        var ready = Metric("5 spawn to accepting", unit: "ms", target: .mobiusdAtMost(50))
        var cpu: Metric
        var wakeUps: Metric

        init(idleSeconds: Double) {
            let window =
                idleSeconds == idleSeconds.rounded() ? String(Int(idleSeconds)) : Format.decimal(idleSeconds, 1)
            cpu = Metric("5 idle \(window) s: CPU", unit: "µs", target: .mobiusdAtMost(0))
            wakeUps = Metric("5 idle \(window) s: wake-ups", unit: "count", target: .none)
        }

        var all: [Metric] { [rss, ready, cpu, wakeUps] }
    }

    /// Records start-up time and RSS of each server, then idles `seconds` and records CPU time and wake-ups.
    static func measure(
        _ servers: [ServerProcess], seconds: Double, into metrics: inout Metrics
    ) throws(BenchError) -> ProcessUsage.CPUSource? {
        var before: [ProcessUsage] = []
        for server in servers {
            let usage = try server.usage()
            metrics.rss.record(Double(usage.residentBytes) / (1024 * 1024), for: server.kind)
            metrics.ready.record(Double(server.readyNanoseconds) / 1e6, for: server.kind)
            before.append(usage)
        }
        try BenchError.checking { () throws(SystemError) in
            try SystemClock.sleep(nanoseconds: UInt64(seconds * 1e9))
        }
        var source: ProcessUsage.CPUSource?
        for (server, start) in zip(servers, before) {
            let end = try server.usage()
            metrics.cpu.record(Double(Int64(end.cpuNanoseconds) - Int64(start.cpuNanoseconds)) / 1000, for: server.kind)
            metrics.wakeUps.record(
                Double(Int64(end.voluntaryContextSwitches) - Int64(start.voluntaryContextSwitches)), for: server.kind)
            source = end.cpuSource
        }
        return source
    }
}
