/// The process's resource limits that the daemon adjusts.
package enum ResourceLimits {
    /// The soft and hard limits on open file descriptors. The corresponding C function is `getrlimit`.
    package static func openFiles() throws(SystemError) -> (soft: UInt64, hard: UInt64) {
        try Syscall.openFilesLimit().get("getrlimit(RLIMIT_NOFILE)")
    }

    /// Raises the soft limit on open file descriptors to the hard limit; returns the limits before and after.
    /// The corresponding C function is `setrlimit`.
    package static func raiseOpenFilesToHardLimit() throws(SystemError) -> (before: UInt64, after: UInt64) {
        let (soft, hard) = try Syscall.openFilesLimit().get("getrlimit(RLIMIT_NOFILE)")
        guard soft < hard else { return (soft, soft) }
        try Syscall.setOpenFilesLimit(soft: hard, hard: hard).get("setrlimit(RLIMIT_NOFILE)")
        return (soft, hard)
    }
}
