import Glibc

/// A failed system call: which one, and errno.
struct SystemError: Error, CustomStringConvertible {
    let operation: String
    let errno: Int32

    /// Whether the call failed because Ctrl-C asked us to stop.
    var isInterrupted: Bool { errno == EINTR || Interrupt.requested }

    /// Whether the socket's peer is gone (the daemon closed or stopped).
    var isPeerGone: Bool { errno == EPIPE || errno == ECONNRESET }

    /// Whether a failed connect means nobody is listening (no socket file, or a stale one).
    var suggestsNoDaemon: Bool { errno == ENOENT || errno == ECONNREFUSED }

    /// `strerror` text, e.g. "No such file or directory".
    var reason: String {
        if errno == ENAMETOOLONG && operation == "connect" {
            return "the path is longer than a Unix socket path may be (107 bytes)"
        }
        return Syscall.describe(errno: errno)
    }

    var description: String { "\(operation): \(reason)" }
}
