internal import Glibc

/// Errno values other folders compare `SystemError.errno` against.
package enum SystemErrno {
    package static let addressInUse = EADDRINUSE
    /// EEXIST: something is already there.
    package static let fileExists = EEXIST
    /// EMFILE: this process is at its RLIMIT_NOFILE.
    package static let processOutOfDescriptors = EMFILE
    /// ENFILE: the system-wide file table is full.
    package static let systemOutOfDescriptors = ENFILE
}
