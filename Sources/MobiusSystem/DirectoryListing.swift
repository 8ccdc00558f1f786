/// The names in a directory, for walking small kernel-made directories like /proc/PID/task and scratch folders.
package enum DirectoryListing {
    /// The entries of `path` in the order the kernel returns them, without `.` and `..`. The corresponding C
    /// functions are `opendir`, `readdir` and `closedir`.
    /// - Throws: `SystemError` when the directory cannot be opened or read (ENOENT when it is gone).
    package static func names(in path: String) throws(SystemError) -> [String] {
        try Syscall.directoryNames(path)
    }
}
