internal import CLinux
internal import Glibc

/// AF_UNIX stream sockets: the daemon's listening socket and its accepted connections.
package enum UnixSocket {
    /// The longest path `sockaddr_un` holds (excluding the terminating NUL).
    package static let maximumPathLength = MemoryLayout.size(ofValue: sockaddr_un().sun_path) - 1

    /// Binds and listens on `path`. A stale socket file (nothing accepts on it) is replaced; a path where a live
    /// process accepts connections is refused with EADDRINUSE, which callers report as "already running".
    package static func listen(path: String, backlog: Int32 = 1024) throws(SystemError) -> FileDescriptor {
        guard path.utf8.count <= maximumPathLength else {
            throw SystemError(errno: ENAMETOOLONG, operation: "bind", subject: path)
        }
        if FileSystem.exists(path) {
            guard FileSystem.isSocket(path) else { throw SystemError(errno: EEXIST, operation: "bind", subject: path) }
            if let probe = try? connect(path: path) {
                probe.close()
                throw SystemError(errno: EADDRINUSE, operation: "bind", subject: path)
            }
            try FileSystem.remove(path)
        }
        let fd = try makeSocket()
        do throws(SystemError) {
            try withAddress(path) { address, length throws(SystemError) in
                guard Glibc.bind(fd.rawValue, address, length) == 0 else { throw SystemError.current("bind", path) }
            }
            guard Glibc.listen(fd.rawValue, backlog) == 0 else { throw SystemError.current("listen", path) }
            try fd.setNonBlocking()
        } catch {
            fd.close()
            throw error
        }
        return fd
    }

    /// Connects to `path` (blocking).
    package static func connect(path: String) throws(SystemError) -> FileDescriptor {
        let fd = try makeSocket()
        do throws(SystemError) {
            try withAddress(path) { address, length throws(SystemError) in
                guard retryingOnInterrupt({ Glibc.connect(fd.rawValue, address, length) }) == 0 else {
                    throw SystemError.current("connect", path)
                }
            }
        } catch {
            fd.close()
            throw error
        }
        return fd
    }

    /// Accepts one pending connection as a non-blocking descriptor, or `nil` when none is pending.
    package static func accept(_ listener: FileDescriptor) throws(SystemError) -> FileDescriptor? {
        let raw = retryingOnInterrupt { mobiusd_accept_nonblocking(listener.rawValue) }
        if raw >= 0 { return FileDescriptor(rawValue: raw) }
        switch Glibc.errno {
        case EAGAIN, EWOULDBLOCK, ECONNABORTED, EPROTO: return nil
        default: throw SystemError.current("accept4", listener.description)
        }
    }

    /// The peer's credentials. The corresponding C call is `getsockopt(SO_PEERCRED)`.
    package static func peerCredentials(_ fd: FileDescriptor) throws(SystemError) -> PeerCredentials {
        var credentials = mobiusd_peer_credentials()
        guard mobiusd_peer_credentials(fd.rawValue, &credentials) == 0 else {
            throw SystemError.current("getsockopt(SO_PEERCRED)", fd.description)
        }
        return PeerCredentials(pid: credentials.pid, uid: credentials.uid, gid: credentials.gid)
    }

    /// Whether `fd` is a listening AF_UNIX stream socket (for descriptors handed over by systemd). The corresponding
    /// C function is `getsockopt` (`SO_DOMAIN`, `SO_TYPE`, `SO_ACCEPTCONN`).
    package static func isListeningUnixStream(_ fd: FileDescriptor) -> Bool {
        func option(_ name: Int32) -> Int32? {
            var value: Int32 = 0
            var length = socklen_t(MemoryLayout<Int32>.size)
            return getsockopt(fd.rawValue, SOL_SOCKET, name, &value, &length) == 0 ? value : nil
        }
        return option(SO_DOMAIN) == AF_UNIX && option(SO_TYPE) == MOBIUSD_SOCK_STREAM && option(SO_ACCEPTCONN) == 1
    }

    /// The path a bound AF_UNIX socket has (a descriptor handed over by systemd), or `nil` when it has none (an
    /// abstract or unnamed socket). The corresponding C function is `getsockname`.
    package static func localPath(_ fd: FileDescriptor) -> String? {
        var address = sockaddr_un()
        var length = socklen_t(MemoryLayout<sockaddr_un>.size)
        let result = withUnsafeMutablePointer(to: &address) { pointer in
            pointer.withMemoryRebound(to: sockaddr.self, capacity: 1) { getsockname(fd.rawValue, $0, &length) }
        }
        guard result == 0, address.sun_family == sa_family_t(AF_UNIX) else { return nil }
        let pathLength = Int(length) - MemoryLayout<sa_family_t>.size
        guard pathLength > 0 else { return nil }
        let bytes = withUnsafeBytes(of: &address.sun_path) { raw in Array(raw.prefix(pathLength)) }
        guard let first = bytes.first, first != 0 else { return nil }
        return String(decoding: bytes.prefix { $0 != 0 }, as: UTF8.self)
    }

    private static func makeSocket() throws(SystemError) -> FileDescriptor {
        let raw = socket(AF_UNIX, MOBIUSD_SOCK_STREAM_CLOEXEC, 0)
        guard raw >= 0 else { throw SystemError.current("socket") }
        return FileDescriptor(rawValue: raw)
    }

    static func withAddress(
        _ path: String, _ body: (UnsafePointer<sockaddr>, socklen_t) throws(SystemError) -> Void
    ) throws(SystemError) {
        var address = sockaddr_un()
        address.sun_family = sa_family_t(AF_UNIX)
        let bytes = Array(path.utf8)
        guard bytes.count <= maximumPathLength else {
            throw SystemError(errno: ENAMETOOLONG, operation: "connect", subject: path)
        }
        withUnsafeMutableBytes(of: &address.sun_path) { raw in
            raw.copyBytes(from: bytes)
            raw[bytes.count] = 0
        }
        let length = socklen_t(MemoryLayout<sa_family_t>.size + bytes.count + 1)
        var failure: SystemError?
        withUnsafePointer(to: &address) { pointer in
            pointer.withMemoryRebound(to: sockaddr.self, capacity: 1) { generic in
                do throws(SystemError) {
                    try body(generic, length)
                } catch {
                    failure = error
                }
            }
        }
        if let failure { throw failure }
    }
}
