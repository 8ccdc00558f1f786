internal import CLinux
internal import Glibc

extension UnixSocket {
    /// Connects a new AF_UNIX stream socket to `path`, blocking, for a command-line client that Ctrl-C may stop.
    ///
    /// Throws ENAMETOOLONG when `path` does not fit a socket address, EINTR once Ctrl-C is pending (see
    /// ``InterruptRequest``), else the errno of `socket` or `connect` (ENOENT and ECONNREFUSED: nobody listens).
    /// The corresponding C functions are `socket` and `connect`.
    package static func connectInterruptibly(path: String) throws(SystemError) -> FileDescriptor {
        let address = try UnixSocketAddress(path: path, operation: "connect")
        let raw = socket(AF_UNIX, MOBIUSD_SOCK_STREAM_CLOEXEC, 0)
        guard raw >= 0 else { throw SystemError.current("socket") }
        let fd = FileDescriptor(rawValue: raw)
        let result = InterruptRequest.retrying { address.withSocketAddress { Glibc.connect(raw, $0, $1) } }
        // A connect cut short by a signal carries on in the kernel, and the retry then reports EISCONN: connected.
        if result == 0 || Glibc.errno == EISCONN { return fd }
        let error = SystemError.current("connect", path)
        fd.close()
        throw error
    }
}
