internal import Glibc

extension FileDescriptor {
    /// Opens `path` for appending without creating it and without making a terminal the controlling one; the
    /// descriptor is close-on-exec. The corresponding C function is `open` with `O_WRONLY | O_APPEND | O_NOCTTY`.
    /// - Throws: `SystemError` naming the path (ENOENT when it does not exist, EACCES…).
    package static func openForAppending(_ path: String) throws(SystemError) -> FileDescriptor {
        let raw = retryingOnInterrupt { open(path, O_WRONLY | O_APPEND | O_NOCTTY | O_CLOEXEC) }
        guard raw >= 0 else { throw SystemError.current("open", path) }
        return FileDescriptor(rawValue: raw)
    }
}
