extension FileSystem {
    /// Renames `source` to `destination` in one step, replacing what is there. The corresponding C function is
    /// `rename`.
    package static func rename(_ source: String, to destination: String) throws(SystemError) {
        try Syscall.rename(source, to: destination).get("rename", destination)
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
        FileDescriptor(rawValue: try Syscall.openDirectory(path).get("open", path))
    }

    /// The size of the file at `path` in bytes, or `nil` when nothing is there. The corresponding C function is
    /// `stat`.
    package static func fileSize(_ path: String) throws(SystemError) -> Int64? {
        switch Syscall.fileInfo(path, followingLinks: true) {
        case .success(let info): return info.size
        case .failure(.noSuchFile): return nil
        case .failure(let errno): throw SystemError(errno: errno, operation: "stat", subject: path)
        }
    }
}
