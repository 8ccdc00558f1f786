/// When a plugin that ended is started again (docs/plugins.md, "Restarts"): after `initialDelay`, doubling per start
/// within `interval` up to `maxDelay`, and not at all once it has had `burst` starts within `interval`. A pure
/// function of the start history and the time, so it is tested without a process or a clock.
struct PluginRestartPolicy {
    let initialDelay: Double
    let maxDelay: Double
    let burst: Int
    let interval: Double

    init(_ restart: DaemonConfig.Restart) {
        initialDelay = restart.initialDelay
        maxDelay = restart.maxDelay
        burst = restart.burst
        interval = restart.interval
    }

    /// What to do about a plugin that ended.
    enum Decision: Equatable {
        /// Start it again after this many seconds.
        case restart(afterSeconds: Double)
        /// Give up: it is `failed`, for this reason.
        case giveUp(String)
    }

    /// The starts (monotonic nanoseconds, oldest first) still inside the window at `now`: older ones never count
    /// again.
    func recent(_ starts: [UInt64], now: UInt64) -> [UInt64] {
        let window = PluginRestartPolicy.nanoseconds(interval)
        return starts.filter { now - $0 <= window }
    }

    /// The decision after an end at `now`, given every start since the history was last reset.
    func decide(starts: [UInt64], now: UInt64) -> Decision {
        let starts = recent(starts, now: now)
        guard starts.count < burst else {
            return .giveUp("\(starts.count) starts within \(interval) s (restart.burst \(burst))")
        }
        let exponent = max(0, starts.count - 1)
        return .restart(afterSeconds: min(maxDelay, initialDelay * Self.power(of: 2, exponent)))
    }

    private static func power(of base: Double, _ exponent: Int) -> Double {
        var value = 1.0
        for _ in 0..<min(exponent, 60) { value *= base }
        return value
    }

    static func nanoseconds(_ seconds: Double) -> UInt64 {
        UInt64(max(0, seconds) * 1e9)
    }
}
