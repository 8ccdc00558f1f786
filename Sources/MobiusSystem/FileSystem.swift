internal import Glibc

/// The few file-system calls the daemon makes, with errno turned into `SystemError`.
package enum FileSystem {
    /// Whether anything exists at `path` (without following a final symlink).
    package static func exists(_ path: String) -> Bool {
        var info = stat()
        return lstat(path, &info) == 0
    }

    package static func isSocket(_ path: String) -> Bool {
        var info = stat()
        return lstat(path, &info) == 0 && (info.st_mode & S_IFMT) == S_IFSOCK
    }

    /// What `lstat` (or `stat` when `followingLinks`) reports about `path`, or `nil` when nothing is there.
    package static func status(_ path: String, followingLinks: Bool = false) throws(SystemError) -> FileStatus? {
        var info = stat()
        let result = followingLinks ? stat(path, &info) : lstat(path, &info)
        guard result == 0 else {
            if Glibc.errno == ENOENT { return nil }
            throw SystemError.current(followingLinks ? "stat" : "lstat", path)
        }
        let kind: FileStatus.Kind
        switch info.st_mode & S_IFMT {
        case S_IFDIR: kind = .directory
        case S_IFLNK: kind = .symbolicLink
        case S_IFSOCK: kind = .socket
        case S_IFREG: kind = .regularFile
        default: kind = .other
        }
        return FileStatus(
            kind: kind, owner: info.st_uid, group: info.st_gid, permissions: UInt32(info.st_mode & 0o7777))
    }

    /// What tells one version of the regular file at `path` (links followed) from another: its device, inode,
    /// size and modification time. `nil` when it is missing or not a regular file.
    package static func version(_ path: String) -> FileVersion? {
        var info = stat()
        guard stat(path, &info) == 0, (info.st_mode & S_IFMT) == S_IFREG else { return nil }
        return FileVersion(
            device: UInt64(info.st_dev), inode: UInt64(info.st_ino), size: Int64(info.st_size),
            modifiedSeconds: Int64(info.st_mtim.tv_sec), modifiedNanoseconds: Int64(info.st_mtim.tv_nsec))
    }

    /// Whether `path` is an executable regular file for this process.
    package static func isExecutable(_ path: String) -> Bool {
        var info = stat()
        return stat(path, &info) == 0 && (info.st_mode & S_IFMT) == S_IFREG && access(path, X_OK) == 0
    }

    /// Removes a file. The corresponding C function is `unlink`.
    package static func remove(_ path: String) throws(SystemError) {
        guard unlink(path) == 0 || Glibc.errno == ENOENT else { throw SystemError.current("unlink", path) }
    }

    /// Creates a directory and its missing parents with `mode`.
    package static func makeDirectories(_ path: String, mode: UInt32 = 0o755) throws(SystemError) {
        var prefix = path.hasPrefix("/") ? "" : "."
        for component in path.split(separator: "/") {
            prefix += "/" + component
            if mkdir(prefix, mode_t(mode)) != 0 && Glibc.errno != EEXIST {
                throw SystemError.current("mkdir", prefix)
            }
        }
    }

    /// Sets permission bits. The corresponding C function is `chmod`.
    package static func setMode(_ path: String, _ mode: UInt32) throws(SystemError) {
        guard chmod(path, mode_t(mode)) == 0 else { throw SystemError.current("chmod", path) }
    }

    /// Sets the group. The corresponding C function is `chown` (owner unchanged).
    package static func setGroup(_ path: String, _ gid: UInt32) throws(SystemError) {
        guard chown(path, uid_t.max, gid) == 0 else { throw SystemError.current("chown", path) }
    }

    /// Reads a whole file.
    package static func read(_ path: String) throws(SystemError) -> [UInt8] {
        let raw = retryingOnInterrupt { open(path, O_RDONLY | O_CLOEXEC) }
        guard raw >= 0 else { throw SystemError.current("open", path) }
        let fd = FileDescriptor(rawValue: raw)
        defer { fd.close() }
        var result: [UInt8] = []
        var chunk = [UInt8](repeating: 0, count: 65536)
        while true {
            let outcome = try chunk.withUnsafeMutableBytes { buffer in
                Result { () throws(SystemError) in try fd.read(into: buffer) }
            }.get()
            switch outcome {
            case .transferred(let count): result.append(contentsOf: chunk[0..<count])
            case .endOfFile, .wouldBlock: return result
            }
        }
    }

    /// The absolute form of `path`, resolved against `directory` when relative.
    /// `.` components are dropped (`./plugins/x` → `DIR/plugins/x`); `..` is kept, since it may cross a symlink.
    package static func resolve(_ path: String, against directory: String) -> String {
        let joined = path.hasPrefix("/") ? path : directory + "/" + path
        let components = joined.split(separator: "/", omittingEmptySubsequences: true).filter { $0 != "." }
        return "/" + components.joined(separator: "/")
    }

    /// The current working directory.
    package static func currentDirectory() -> String {
        var buffer = [CChar](repeating: 0, count: Int(PATH_MAX) + 1)
        guard getcwd(&buffer, buffer.count) != nil else { return "." }
        return String(decoding: buffer.prefix(while: { $0 != 0 }).map { UInt8(bitPattern: $0) }, as: UTF8.self)
    }
}
