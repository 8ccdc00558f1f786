/// The few file-system calls the daemon makes, with errno turned into `SystemError`.
package enum FileSystem {
    /// Whether anything exists at `path` (without following a final symlink).
    package static func exists(_ path: String) -> Bool {
        (try? Syscall.fileInfo(path, followingLinks: false).get()) != nil
    }

    package static func isSocket(_ path: String) -> Bool {
        (try? Syscall.fileInfo(path, followingLinks: false).get())?.kind == .socket
    }

    /// What `lstat` (or `stat` when `followingLinks`) reports about `path`, or `nil` when nothing is there.
    package static func status(_ path: String, followingLinks: Bool = false) throws(SystemError) -> FileStatus? {
        switch Syscall.fileInfo(path, followingLinks: followingLinks) {
        case .success(let info):
            return FileStatus(kind: info.kind, owner: info.owner, group: info.group, permissions: info.permissions)
        case .failure(.noSuchFile): return nil
        case .failure(let errno):
            throw SystemError(errno: errno, operation: followingLinks ? "stat" : "lstat", subject: path)
        }
    }

    /// What tells one version of the regular file at `path` (links followed) from another: its device, inode,
    /// size and modification time. `nil` when it is missing or not a regular file.
    package static func version(_ path: String) -> FileVersion? {
        guard let info = try? Syscall.fileInfo(path, followingLinks: true).get(), info.kind == .regularFile else {
            return nil
        }
        return FileVersion(
            device: info.device, inode: info.inode, size: info.size, modifiedSeconds: info.modifiedSeconds,
            modifiedNanoseconds: info.modifiedNanoseconds)
    }

    /// Whether `path` is an executable regular file for this process.
    package static func isExecutable(_ path: String) -> Bool {
        (try? Syscall.fileInfo(path, followingLinks: true).get())?.kind == .regularFile && Syscall.isExecutable(path)
    }

    /// Removes a file. The corresponding C function is `unlink`.
    package static func remove(_ path: String) throws(SystemError) {
        switch Syscall.unlink(path) {
        case .success, .failure(.noSuchFile): return
        case .failure(let errno): throw SystemError(errno: errno, operation: "unlink", subject: path)
        }
    }

    /// Creates a directory and its missing parents with `mode`.
    package static func makeDirectories(_ path: String, mode: UInt32 = 0o755) throws(SystemError) {
        var prefix = path.hasPrefix("/") ? "" : "."
        for component in path.split(separator: "/") {
            prefix += "/" + component
            switch Syscall.mkdir(prefix, mode) {
            case .success, .failure(.fileExists): continue
            case .failure(let errno): throw SystemError(errno: errno, operation: "mkdir", subject: prefix)
            }
        }
    }

    /// Sets permission bits. The corresponding C function is `chmod`.
    package static func setMode(_ path: String, _ mode: UInt32) throws(SystemError) {
        try Syscall.chmod(path, mode).get("chmod", path)
    }

    /// Sets the group. The corresponding C function is `chown` (owner unchanged).
    package static func setGroup(_ path: String, _ gid: UInt32) throws(SystemError) {
        try Syscall.setGroup(path, gid).get("chown", path)
    }

    /// Reads a whole file.
    package static func read(_ path: String) throws(SystemError) -> [UInt8] {
        let fd = try FileDescriptor.openFile(path, .readOnly)
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
        Syscall.currentDirectory() ?? "."
    }
}
