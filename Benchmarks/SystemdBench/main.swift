// The systemd side of mobiusd, measured (issue #7 and its targets): time from posix_spawn to READY=1 (target
// ≤ 50 ms), without and with a state directory, and the CPU an idle daemon spends on its watchdog pings.
// Usage: mobiusd-systemd-bench --mobiusd PATH [--runs N] [--idle-seconds S]
import MobiusSystem
import MobiusTestSupport

var mobiusd = ""
var runs = 5
var idleSeconds = 5.0
var arguments = CommandLine.arguments.dropFirst()
while let flag = arguments.popFirst() {
    switch flag {
    case "--mobiusd": mobiusd = arguments.popFirst() ?? ""
    case "--runs": runs = arguments.popFirst().flatMap(Int.init) ?? runs
    case "--idle-seconds": idleSeconds = arguments.popFirst().flatMap(Double.init) ?? idleSeconds
    default:
        print("usage: mobiusd-systemd-bench --mobiusd PATH [--runs N] [--idle-seconds S]")
        SystemProcess.exit(2)
    }
}
guard !mobiusd.isEmpty else {
    print("mobiusd-systemd-bench: --mobiusd PATH is required")
    SystemProcess.exit(2)
}

func median(_ values: [Double]) -> Double {
    let sorted = values.sorted()
    return sorted.isEmpty ? 0 : sorted[sorted.count / 2]
}

func format(_ value: Double) -> String {
    let tenths = (value * 10).rounded() / 10
    return "\(tenths)"
}

do {
    let directory = try TemporaryDirectory(prefix: "mobiusd-systemd-bench")
    defer { directory.remove() }

    // Start to READY=1: ephemeral, and with a fresh state directory (journal and lock files created).
    var ephemeral: [Double] = []
    var stateful: [Double] = []
    for run in 0..<runs {
        let first = try SystemdDaemon.start(
            mobiusd: mobiusd, directory: directory, name: "e\(run)", arguments: ["--ephemeral"],
            watchdogMicroseconds: nil)
        ephemeral.append(Double(first.readyNanoseconds) / 1e6)
        first.stop()
        let second = try SystemdDaemon.start(
            mobiusd: mobiusd, directory: directory, name: "s\(run)",
            arguments: ["--state-dir", directory.file("state\(run)")], watchdogMicroseconds: nil)
        stateful.append(Double(second.readyNanoseconds) / 1e6)
        second.stop()
    }

    // Idle CPU with the watchdog pinging every 100 ms (WATCHDOG_USEC=200000) against one without, side by side.
    let quiet = try SystemdDaemon.start(
        mobiusd: mobiusd, directory: directory, name: "quiet", arguments: ["--ephemeral"], watchdogMicroseconds: nil)
    let pinging = try SystemdDaemon.start(
        mobiusd: mobiusd, directory: directory, name: "pinging", arguments: ["--ephemeral"],
        watchdogMicroseconds: 200_000)
    try SystemClock.sleep(nanoseconds: 300_000_000)
    _ = try pinging.takePings()
    let quietBefore = try quiet.usage()
    let pingingBefore = try pinging.usage()
    // Drained as systemd would: a Unix datagram queue holds only 10 messages here (net.unix.max_dgram_qlen).
    var pings = 0
    let idleEnd = SystemProcess.monotonicNanoseconds() + UInt64(idleSeconds * 1e9)
    while SystemProcess.monotonicNanoseconds() < idleEnd {
        try SystemClock.sleep(nanoseconds: 50_000_000)
        pings += try pinging.takePings()
    }
    let quietAfter = try quiet.usage()
    let pingingAfter = try pinging.usage()
    pings += try pinging.takePings()
    quiet.stop()
    pinging.stop()

    let quietCPU = Double(quietAfter.cpuNanoseconds - quietBefore.cpuNanoseconds) / 1e3
    let pingingCPU = Double(pingingAfter.cpuNanoseconds - pingingBefore.cpuNanoseconds) / 1e3
    let wakeUps = pingingAfter.voluntaryContextSwitches - pingingBefore.voluntaryContextSwitches
    let perPing = pings > 0 ? (pingingCPU - quietCPU) / Double(pings) : 0
    // WatchdogSec=30s in the units: a ping every 15 s, 240 an hour.
    let perHour = perPing * 240 / 1e3

    print("machine: \(SystemProcess.environment("HOSTNAME") ?? "this host"); runs: \(runs)")
    print("| what | median | all runs |")
    print("|---|---:|---|")
    print(
        "| spawn to READY=1, --ephemeral (target ≤ 50 ms) | \(format(median(ephemeral))) ms | \(ephemeral.map(format)) |"
    )
    print("| spawn to READY=1, fresh state directory | \(format(median(stateful))) ms | \(stateful.map(format)) |")
    print(
        "| idle \(format(idleSeconds)) s, no watchdog: CPU | \(format(quietCPU)) µs | wake-ups "
            + "\(quietAfter.voluntaryContextSwitches - quietBefore.voluntaryContextSwitches) |")
    print(
        "| idle \(format(idleSeconds)) s, WATCHDOG_USEC=200ms: CPU | \(format(pingingCPU)) µs | \(pings) pings, \(wakeUps) wake-ups |"
    )
    print("| CPU per watchdog ping | \(format(perPing)) µs | at WatchdogSec=30s: \(format(perHour)) ms per hour |")
} catch {
    print("mobiusd-systemd-bench: \(error)")
    SystemProcess.exit(1)
}
