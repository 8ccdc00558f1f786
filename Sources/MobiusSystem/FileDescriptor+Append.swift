extension FileDescriptor {
    /// Opens `path` for appending without creating it and without making a terminal the controlling one; the
    /// descriptor is close-on-exec. The corresponding C function is `open` with `O_WRONLY | O_APPEND | O_NOCTTY`.
    /// - Throws: `SystemError` naming the path (ENOENT when it does not exist, EACCES…).
    package static func openForAppending(_ path: String) throws(SystemError) -> FileDescriptor {
        FileDescriptor(rawValue: try Syscall.openForAppending(path).get("open", path))
    }
}
