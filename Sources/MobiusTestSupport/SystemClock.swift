internal import Glibc
import MobiusSystem

/// Sleeping on CLOCK_MONOTONIC, the clock `SystemProcess.monotonicNanoseconds()` reads.
package enum SystemClock {
    /// Sleeps until the monotonic clock reaches `deadline` (nanoseconds, as `SystemProcess.monotonicNanoseconds()`
    /// counts them); returns at once when it has passed. A signal does not cut the sleep short. Sleeping to absolute
    /// deadlines keeps a paced sender on its schedule: the work done between sleeps does not push the next slot
    /// back. The corresponding C function is `clock_nanosleep` with `TIMER_ABSTIME`.
    /// - Throws: `SystemError` when the kernel refuses the deadline (EINVAL).
    package static func sleep(untilMonotonic deadline: UInt64) throws(SystemError) {
        var spec = timespec(tv_sec: Int(deadline / 1_000_000_000), tv_nsec: Int(deadline % 1_000_000_000))
        while true {
            // clock_nanosleep returns the error number instead of setting errno.
            let result = clock_nanosleep(CLOCK_MONOTONIC, TIMER_ABSTIME, &spec, nil)
            if result == 0 { return }
            if result == EINTR { continue }
            throw SystemError(errno: Errno(rawValue: result), operation: "clock_nanosleep")
        }
    }

    /// Sleeps for `nanoseconds`, resuming after signals without drifting (the deadline is fixed up front).
    package static func sleep(nanoseconds: UInt64) throws(SystemError) {
        try sleep(untilMonotonic: SystemProcess.monotonicNanoseconds() + nanoseconds)
    }
}
