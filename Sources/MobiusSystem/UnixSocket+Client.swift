extension UnixSocket {
    /// Connects a new AF_UNIX stream socket to `path`, blocking, for a command-line client that Ctrl-C may stop.
    ///
    /// Throws ENAMETOOLONG when `path` does not fit a socket address, EINTR once Ctrl-C is pending (see
    /// ``InterruptRequest``), else the errno of `socket` or `connect` (ENOENT and ECONNREFUSED: nobody listens).
    /// The corresponding C functions are `socket` and `connect`.
    package static func connectInterruptibly(path: String) throws(SystemError) -> FileDescriptor {
        let address = try UnixSocketAddress(path: path, operation: "connect")
        let fd = FileDescriptor(rawValue: try Syscall.streamSocket().get("socket"))
        switch Syscall.connect(fd.rawValue, address, path: path, interruptible: true) {
        // A connect cut short by a signal carries on in the kernel, and the retry then reports EISCONN: connected.
        case .success, .failure(.alreadyConnected): return fd
        case .failure(let errno):
            fd.close()
            throw SystemError(errno: errno, operation: "connect", subject: path)
        }
    }
}
