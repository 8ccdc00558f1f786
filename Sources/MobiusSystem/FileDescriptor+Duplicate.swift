internal import Glibc

extension FileDescriptor {
    /// A new close-on-exec descriptor for the same open file, numbered 3 or above (never one of 0-2). The
    /// corresponding C function is `fcntl` with `F_DUPFD_CLOEXEC`.
    package func duplicate() throws(SystemError) -> FileDescriptor {
        let raw = fcntl(rawValue, F_DUPFD_CLOEXEC, Int32(3))
        guard raw >= 0 else { throw SystemError.current("fcntl(F_DUPFD_CLOEXEC)", description) }
        return FileDescriptor(rawValue: raw)
    }

    /// Makes `target` another descriptor for this open file, closing what `target` was. The corresponding C
    /// function is `dup2`.
    package func duplicate(onto target: FileDescriptor) throws(SystemError) {
        guard retryingOnInterrupt({ dup2(rawValue, target.rawValue) }) >= 0 else {
            throw SystemError.current("dup2", "\(description) onto \(target)")
        }
    }

    /// Standard input.
    package static let standardInput = FileDescriptor(rawValue: 0)
}
