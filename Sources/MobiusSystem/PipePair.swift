internal import Glibc

/// The two ends of a pipe, both blocking and close-on-exec: a test or tool that drives a child over its stdin and
/// stdout keeps one end of each and hands the other to the child (as `/proc/self/fd/N` to `ChildProcess.spawn`,
/// which opens it in the child before exec).
package struct PipePair: Sendable {
    /// The end to read from.
    package let readEnd: FileDescriptor
    /// The end to write to.
    package let writeEnd: FileDescriptor

    /// Creates the pipe. The corresponding C function is `pipe`, then `fcntl` with `FD_CLOEXEC` on both ends.
    package init() throws(SystemError) {
        var fds: [Int32] = [-1, -1]
        guard Glibc.pipe(&fds) == 0 else { throw SystemError.current("pipe") }
        for fd in fds { _ = fcntl(fd, F_SETFD, FD_CLOEXEC) }
        readEnd = FileDescriptor(rawValue: fds[0])
        writeEnd = FileDescriptor(rawValue: fds[1])
    }

    /// The path through which a child started by `ChildProcess.spawn` opens `end` (`/proc/self/fd/N`).
    package static func childPath(_ end: FileDescriptor) -> String {
        "/proc/self/fd/\(end.rawValue)"
    }
}
