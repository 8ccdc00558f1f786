internal import Glibc

extension FileSystem {
    /// Renames `source` to `destination` in one step, replacing what is there. The corresponding C function is
    /// `rename`.
    package static func rename(_ source: String, to destination: String) throws(SystemError) {
        guard Glibc.rename(source, destination) == 0 else { throw SystemError.current("rename", destination) }
    }

    /// Makes a directory's entries (created, renamed, removed files) durable. The corresponding C functions are
    /// `open` with `O_DIRECTORY` and `fsync`.
    package static func synchronizeDirectory(_ path: String) throws(SystemError) {
        let fd = try openDirectory(path)
        defer { fd.close() }
        try fd.synchronize()
    }

    /// A read-only descriptor of the directory at `path` (the caller closes it).
    package static func openDirectory(_ path: String) throws(SystemError) -> FileDescriptor {
        let raw = retryingOnInterrupt { open(path, O_RDONLY | O_DIRECTORY | O_CLOEXEC) }
        guard raw >= 0 else { throw SystemError.current("open", path) }
        return FileDescriptor(rawValue: raw)
    }

    /// The size of the file at `path` in bytes, or `nil` when nothing is there. The corresponding C function is
    /// `stat`.
    package static func fileSize(_ path: String) throws(SystemError) -> Int64? {
        var info = stat()
        guard stat(path, &info) == 0 else {
            if Glibc.errno == ENOENT { return nil }
            throw SystemError.current("stat", path)
        }
        return Int64(info.st_size)
    }
}
