/// An errno value: what a failed system call reported. The named values are the ones the package reacts to; any
/// other comes through as its number.
///
/// The numbers are Linux's (`asm-generic/errno-base.h` and `errno.h`), so that comparing one needs no C module;
/// ErrnoTests checks each against the C library's constant.
package struct Errno: Error, RawRepresentable, Hashable, Sendable, CustomStringConvertible {
    package let rawValue: Int32

    package init(rawValue: Int32) {
        self.rawValue = rawValue
    }

    /// EPERM: the operation is not permitted (not root, another user's process).
    package static let notPermitted = Errno(rawValue: 1)
    /// ENOENT: no such file or directory.
    package static let noSuchFile = Errno(rawValue: 2)
    /// ESRCH: no such process.
    package static let noSuchProcess = Errno(rawValue: 3)
    /// EINTR: a signal interrupted the call.
    package static let interrupted = Errno(rawValue: 4)
    /// EIO: the device reported an I/O error.
    package static let ioError = Errno(rawValue: 5)
    /// EBADF: not an open descriptor.
    package static let badDescriptor = Errno(rawValue: 9)
    /// ECHILD: no such child (already reaped).
    package static let noChildProcess = Errno(rawValue: 10)
    /// EAGAIN, which is also EWOULDBLOCK on Linux: a non-blocking call found nothing ready.
    package static let wouldBlock = Errno(rawValue: 11)
    /// EACCES: permission denied.
    package static let permissionDenied = Errno(rawValue: 13)
    /// EEXIST: something is already there.
    package static let fileExists = Errno(rawValue: 17)
    /// EINVAL: an invalid argument.
    package static let invalidArgument = Errno(rawValue: 22)
    /// ENFILE: the system-wide file table is full.
    package static let systemOutOfDescriptors = Errno(rawValue: 23)
    /// EMFILE: this process is at its RLIMIT_NOFILE.
    package static let processOutOfDescriptors = Errno(rawValue: 24)
    /// EFBIG: a write past RLIMIT_FSIZE or the file system's limit.
    package static let fileTooLarge = Errno(rawValue: 27)
    /// ENOSPC: the disk is full.
    package static let noSpace = Errno(rawValue: 28)
    /// EPIPE: the reading end is gone.
    package static let brokenPipe = Errno(rawValue: 32)
    /// ENAMETOOLONG: a path is too long for the call.
    package static let nameTooLong = Errno(rawValue: 36)
    /// EPROTO: a protocol error (accept4 on a connection that failed).
    package static let protocolError = Errno(rawValue: 71)
    /// ENOPROTOOPT: the socket option is unknown (SO_PEERGROUPS before Linux 4.13).
    package static let noProtocolOption = Errno(rawValue: 92)
    /// EADDRINUSE: the address is in use.
    package static let addressInUse = Errno(rawValue: 98)
    /// ECONNABORTED: a pending connection was aborted before it was accepted.
    package static let connectionAborted = Errno(rawValue: 103)
    /// ECONNRESET: the peer reset the connection.
    package static let connectionReset = Errno(rawValue: 104)
    /// EISCONN: the socket is already connected.
    package static let alreadyConnected = Errno(rawValue: 106)
    /// ETIMEDOUT: the call timed out.
    package static let timedOut = Errno(rawValue: 110)
    /// ECONNREFUSED: nobody accepts on the address.
    package static let connectionRefused = Errno(rawValue: 111)

    /// The C library's text for the value, e.g. "No space left on device".
    package var description: String { Syscall.errorText(self) }
}
