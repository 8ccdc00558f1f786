internal import Glibc
import MobiusSystem

extension FileDescriptor {
    /// Opens `path` for writing, creating it with `mode` or truncating what is there; the descriptor is
    /// close-on-exec. The corresponding C function is `open` with `O_WRONLY | O_CREAT | O_TRUNC`.
    package static func create(_ path: String, mode: UInt32 = 0o644) throws(SystemError) -> FileDescriptor {
        let raw = open(path, O_WRONLY | O_CREAT | O_TRUNC | O_CLOEXEC, mode_t(mode))
        guard raw >= 0 else { throw SystemError.current("open", path) }
        return FileDescriptor(rawValue: raw)
    }
}
