internal import CLinux
internal import Glibc

/// Facts about and controls over this process: ids, environment, memory, clocks, signals.
package enum SystemProcess {
    /// The process's user id.
    package static var userID: UInt32 { getuid() }

    /// The process's primary group id (effective).
    package static var groupID: UInt32 { getegid() }

    /// The process id.
    package static var processID: Int32 { getpid() }

    /// An environment variable, or `nil` when unset.
    package static func environment(_ name: String) -> String? {
        getenv(name).map { String(decoding: UnsafeRawBufferPointer(start: $0, count: strlen($0)), as: UTF8.self) }
    }

    /// Resident set size in bytes, from /proc/self/statm.
    package static func residentBytes() -> Int {
        guard let text = try? FileSystem.read("/proc/self/statm"),
            let fields = Optional(text.split(separator: UInt8(ascii: " "))), fields.count > 1,
            let pages = Int(String(decoding: fields[1], as: UTF8.self))
        else { return 0 }
        return pages * Int(sysconf(Int32(_SC_PAGESIZE)))
    }

    /// Monotonic time in nanoseconds (CLOCK_MONOTONIC).
    package static func monotonicNanoseconds() -> UInt64 {
        var spec = timespec()
        clock_gettime(CLOCK_MONOTONIC, &spec)
        return UInt64(spec.tv_sec) * 1_000_000_000 + UInt64(spec.tv_nsec)
    }

    /// Wall-clock time as seconds and nanoseconds since the epoch (CLOCK_REALTIME).
    package static func wallClock() -> (seconds: Int, nanoseconds: Int) {
        var spec = timespec()
        clock_gettime(CLOCK_REALTIME, &spec)
        return (spec.tv_sec, spec.tv_nsec)
    }

    /// Ignores SIGPIPE process-wide: a client that hangs up must never kill the daemon.
    package static func ignoreBrokenPipe() {
        signal(SIGPIPE, SIG_IGN)
    }

    /// Ignores SIGXFSZ process-wide: a write past RLIMIT_FSIZE then fails with EFBIG, which the journal turns into
    /// `StorageFailure`, instead of killing the daemon.
    package static func ignoreFileSizeLimitSignal() {
        signal(SIGXFSZ, SIG_IGN)
    }

    /// Exits the process at once with `code`.
    package static func exit(_ code: Int32) -> Never {
        Glibc.exit(code)
    }

    /// Random bytes from the kernel (getrandom), for epoch names.
    package static func randomBytes(_ count: Int) -> [UInt8] {
        var bytes = [UInt8](repeating: 0, count: count)
        var filled = 0
        while filled < count {
            let result = bytes.withUnsafeMutableBytes { buffer in
                getrandom(buffer.baseAddress! + filled, count - filled, 0)
            }
            if result > 0 { filled += result }
        }
        return bytes
    }
}
