internal import CLinux
internal import Glibc
import MobiusSystem

/// Two connected AF_UNIX stream sockets, for moving bytes between threads of one process as a client and server
/// would (load-generator self-tests, fakes in tests). Both ends are blocking and close-on-exec.
package struct SocketPair: Sendable {
    /// One end.
    package let first: FileDescriptor
    /// The other end.
    package let second: FileDescriptor

    /// Creates the pair. The corresponding C function is `socketpair`.
    package init() throws(SystemError) {
        var fds: [Int32] = [-1, -1]
        guard socketpair(AF_UNIX, MOBIUSD_SOCK_STREAM_CLOEXEC, 0, &fds) == 0 else {
            throw SystemError.current("socketpair")
        }
        first = FileDescriptor(rawValue: fds[0])
        second = FileDescriptor(rawValue: fds[1])
    }

    /// Closes both ends.
    package func close() {
        first.close()
        second.close()
    }
}
