/// Facts about and controls over this process: ids, environment, memory, clocks, signals.
package enum SystemProcess {
    /// The process's user id.
    package static var userID: UInt32 { Syscall.userID }

    /// The process's primary group id (effective).
    package static var groupID: UInt32 { Syscall.effectiveGroupID }

    /// The process id.
    package static var processID: Int32 { Syscall.processID }

    /// An environment variable, or `nil` when unset.
    package static func environment(_ name: String) -> String? {
        Syscall.environment(name)
    }

    /// Resident set size in bytes, from /proc/self/statm.
    package static func residentBytes() -> Int {
        guard let text = try? FileSystem.read("/proc/self/statm"),
            let fields = Optional(text.split(separator: UInt8(ascii: " "))), fields.count > 1,
            let pages = Int(String(decoding: fields[1], as: UTF8.self))
        else { return 0 }
        return pages * Syscall.pageSize
    }

    /// Monotonic time in nanoseconds (CLOCK_MONOTONIC).
    package static func monotonicNanoseconds() -> UInt64 {
        let (seconds, nanoseconds) = Syscall.clock()
        return UInt64(seconds) * 1_000_000_000 + UInt64(nanoseconds)
    }

    /// Wall-clock time as seconds and nanoseconds since the epoch (CLOCK_REALTIME).
    package static func wallClock() -> (seconds: Int, nanoseconds: Int) {
        Syscall.clock(realtime: true)
    }

    /// Ignores SIGPIPE process-wide: a client that hangs up must never kill the daemon.
    package static func ignoreBrokenPipe() {
        Syscall.ignore(.brokenPipe)
    }

    /// Ignores SIGXFSZ process-wide: a write past RLIMIT_FSIZE then fails with EFBIG, which the journal turns into
    /// `StorageFailure`, instead of killing the daemon.
    package static func ignoreFileSizeLimitSignal() {
        Syscall.ignore(.fileSizeLimit)
    }

    /// Exits the process at once with `code`.
    package static func exit(_ code: Int32) -> Never {
        Syscall.exit(code)
    }

    /// Random bytes from the kernel (getrandom), for epoch names.
    package static func randomBytes(_ count: Int) -> [UInt8] {
        Syscall.randomBytes(count)
    }
}
