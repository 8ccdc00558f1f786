internal import CSystemd
import MobiusSystem

/// `WATCHDOG=1` at half of `WATCHDOG_USEC`, sent by a reactor timer, so it comes from the thread that runs the loop's
/// passes: a pass stuck in an app's update stops the pings and systemd restarts the daemon.
///
/// Reactor thread only. Off unless `sd_watchdog_enabled` says the service manager asked for it (and for this pid).
final class SystemdWatchdog {
    /// The time between pings, nanoseconds (half of `WATCHDOG_USEC`, at least `shortestIntervalMicroseconds`).
    let intervalNanoseconds: UInt64
    /// The shortest time between pings: 1 ms.
    static var shortestIntervalMicroseconds: UInt64 { 1000 }
    private let reactor: Reactor
    private let notifier: SystemdNotifier

    /// `nil` when the service manager asked for no watchdog, or `WATCHDOG_USEC` is malformed (logged).
    init?(reactor: Reactor, notifier: SystemdNotifier, log: DaemonLog) {
        var microseconds: UInt64 = 0
        let enabled = sd_watchdog_enabled(0, &microseconds)
        if enabled < 0 {
            let error = SystemError(
                errno: Errno(rawValue: -enabled), operation: "sd_watchdog_enabled", subject: "WATCHDOG_USEC")
            log.warning("the watchdog is off: WATCHDOG_USEC or WATCHDOG_PID is malformed (\(error))")
            return nil
        }
        guard enabled > 0, microseconds > 0 else { return nil }
        // Half the interval, in nanoseconds, from 1 ms (a smaller WATCHDOG_USEC would make the reactor spin) to about
        // 292 years (WATCHDOG_USEC may be as large as 2^64 - 2).
        let half = microseconds / 2
        intervalNanoseconds =
            half > UInt64.max / 1000 ? UInt64.max / 2 : max(half, Self.shortestIntervalMicroseconds) * 1000
        self.reactor = reactor
        self.notifier = notifier
        log.info("watchdog: pinging systemd every \(Double(intervalNanoseconds) / 1e6) ms")
    }

    /// Pings now and then every interval.
    func start() {
        notifier.watchdog()
        reactor.after(nanoseconds: intervalNanoseconds) { [self] in start() }
    }
}
