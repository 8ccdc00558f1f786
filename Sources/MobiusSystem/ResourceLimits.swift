internal import Glibc

/// The process's resource limits that the daemon adjusts.
package enum ResourceLimits {
    /// The soft and hard limits on open file descriptors. The corresponding C function is `getrlimit`.
    package static func openFiles() throws(SystemError) -> (soft: UInt64, hard: UInt64) {
        var limit = rlimit()
        guard getrlimit(Int32(RLIMIT_NOFILE.rawValue), &limit) == 0 else {
            throw SystemError.current("getrlimit(RLIMIT_NOFILE)")
        }
        return (UInt64(limit.rlim_cur), UInt64(limit.rlim_max))
    }

    /// Raises the soft limit on open file descriptors to the hard limit; returns the limits before and after.
    /// The corresponding C function is `setrlimit`.
    package static func raiseOpenFilesToHardLimit() throws(SystemError) -> (before: UInt64, after: UInt64) {
        var limit = rlimit()
        guard getrlimit(Int32(RLIMIT_NOFILE.rawValue), &limit) == 0 else {
            throw SystemError.current("getrlimit(RLIMIT_NOFILE)")
        }
        let before = UInt64(limit.rlim_cur)
        guard limit.rlim_cur < limit.rlim_max else { return (before, before) }
        limit.rlim_cur = limit.rlim_max
        guard setrlimit(Int32(RLIMIT_NOFILE.rawValue), &limit) == 0 else {
            throw SystemError.current("setrlimit(RLIMIT_NOFILE)")
        }
        return (before, UInt64(limit.rlim_max))
    }
}
