internal import Glibc

/// A file-system path packed into `sockaddr_un`, the address that `connect` and `bind` take for AF_UNIX sockets.
///
/// Internal: C types stay inside MobiusSystem.
struct UnixSocketAddress {
    private var storage = sockaddr_un()
    /// The bytes in use: the family, the path and its terminating NUL.
    let length: socklen_t

    /// The longest path `sockaddr_un` holds (excluding the terminating NUL).
    static let maximumPathLength = MemoryLayout.size(ofValue: sockaddr_un().sun_path) - 1

    /// Packs `path`. Throws ENAMETOOLONG when it is longer than ``maximumPathLength`` and, unless `allowingNUL`,
    /// EINVAL when it holds a NUL byte, each reported as a failure of `operation` on `path`.
    init(path: String, operation: String, allowingNUL: Bool = false) throws(SystemError) {
        let bytes = Array(path.utf8)
        guard bytes.count <= Self.maximumPathLength else {
            throw SystemError(errno: .nameTooLong, operation: operation, subject: path)
        }
        // The kernel would read only up to the NUL and reach another path than the one named.
        guard allowingNUL || !bytes.contains(0) else {
            throw SystemError(errno: .invalidArgument, operation: operation, subject: path)
        }
        storage.sun_family = sa_family_t(AF_UNIX)
        withUnsafeMutableBytes(of: &storage.sun_path) { raw in
            raw.copyBytes(from: bytes)
            raw[bytes.count] = 0
        }
        length = socklen_t(MemoryLayout<sa_family_t>.size + bytes.count + 1)
    }

    /// Calls `body` with the address as the generic `sockaddr` that the socket calls take, and its length.
    func withSocketAddress<Result>(_ body: (UnsafePointer<sockaddr>, socklen_t) -> Result) -> Result {
        withUnsafePointer(to: storage) { pointer in
            pointer.withMemoryRebound(to: sockaddr.self, capacity: 1) { body($0, length) }
        }
    }
}
