/// AF_UNIX stream sockets: the daemon's listening socket and its accepted connections.
package enum UnixSocket {
    /// The longest path `sockaddr_un` holds (excluding the terminating NUL).
    package static var maximumPathLength: Int { UnixSocketAddress.maximumPathLength }

    /// Binds and listens on `path`. A stale socket file (nothing accepts on it) is replaced; a path where a live
    /// process accepts connections is refused with EADDRINUSE, which callers report as "already running".
    ///
    /// `mode` and `group`, when given, are set on the socket file after `bind` and before `listen`: until `listen` a
    /// connect() is refused, so nobody connects while the file still has the mode the umask gave it.
    /// - Throws: the failing call's error (`chmod` or `chown` for the permissions; the file is then removed).
    package static func listen(
        path: String, backlog: Int32 = 1024, mode: UInt32? = nil, group: UInt32? = nil
    ) throws(SystemError) -> FileDescriptor {
        guard path.utf8.count <= maximumPathLength else {
            throw SystemError(errno: .nameTooLong, operation: "bind", subject: path)
        }
        if FileSystem.exists(path) {
            guard FileSystem.isSocket(path) else {
                throw SystemError(errno: .fileExists, operation: "bind", subject: path)
            }
            if let probe = try? connect(path: path) {
                probe.close()
                throw SystemError(errno: .addressInUse, operation: "bind", subject: path)
            }
            try FileSystem.remove(path)
        }
        let fd = try makeSocket()
        do throws(SystemError) {
            try bind(fd, to: path)
            do throws(SystemError) {
                if let mode { try FileSystem.setMode(path, mode) }
                if let group { try FileSystem.setGroup(path, group) }
            } catch {
                try? FileSystem.remove(path)
                throw error
            }
            try Syscall.listen(fd.rawValue, backlog: backlog).get("listen", path)
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
            let address = try UnixSocketAddress(path: path, operation: "connect", allowingNUL: true)
            try Syscall.connect(fd.rawValue, address, path: path).get("connect", path)
        } catch {
            fd.close()
            throw error
        }
        return fd
    }

    /// Accepts one pending connection as a non-blocking descriptor, or `nil` when none is pending.
    package static func accept(_ listener: FileDescriptor) throws(SystemError) -> FileDescriptor? {
        switch Syscall.accept(listener.rawValue) {
        case .success(let raw): return FileDescriptor(rawValue: raw)
        case .failure(.wouldBlock), .failure(.connectionAborted), .failure(.protocolError): return nil
        case .failure(let errno): throw SystemError(errno: errno, operation: "accept4", subject: listener.description)
        }
    }

    /// The peer's credentials as they were when it connected: uid, gid and supplementary groups. The corresponding C
    /// calls are `getsockopt(SO_PEERCRED)` and `getsockopt(SO_PEERGROUPS)`.
    package static func peerCredentials(_ fd: FileDescriptor) throws(SystemError) -> PeerCredentials {
        try Syscall.peerCredentials(fd.rawValue).get("getsockopt(SO_PEERCRED, SO_PEERGROUPS)", fd.description)
    }

    /// Whether `fd` is a listening AF_UNIX stream socket (for descriptors handed over by systemd). The corresponding
    /// C function is `getsockopt` (`SO_DOMAIN`, `SO_TYPE`, `SO_ACCEPTCONN`).
    package static func isListeningUnixStream(_ fd: FileDescriptor) -> Bool {
        Syscall.isListeningUnixStream(fd.rawValue)
    }

    /// The path a bound AF_UNIX socket has (a descriptor handed over by systemd), or `nil` when it has none (an
    /// abstract or unnamed socket). The corresponding C function is `getsockname`.
    package static func localPath(_ fd: FileDescriptor) -> String? {
        Syscall.localPath(fd.rawValue)
    }

    private static func makeSocket() throws(SystemError) -> FileDescriptor {
        FileDescriptor(rawValue: try Syscall.streamSocket().get("socket"))
    }

    /// Binds the socket `fd` to `path`. The corresponding C function is `bind`.
    /// - Throws: ENAMETOOLONG when `path` does not fit a socket address, else the errno of `bind`.
    package static func bind(_ fd: FileDescriptor, to path: String) throws(SystemError) {
        let address = try UnixSocketAddress(path: path, operation: "bind", allowingNUL: true)
        try Syscall.bind(fd.rawValue, address, path: path).get("bind", path)
    }
}
