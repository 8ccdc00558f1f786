internal import Glibc
import MobiusSystem

extension FileDescriptor {
    /// Asks for a send buffer of `bytes` (the kernel doubles it for bookkeeping and caps it at
    /// /proc/sys/net/core/wmem_max). The corresponding C call is `setsockopt(SO_SNDBUF)`.
    package func setSendBufferSize(_ bytes: Int32) throws(SystemError) {
        try setSocketOption(SO_SNDBUF, bytes, name: "SO_SNDBUF")
    }

    /// Asks for a receive buffer of `bytes` (capped at /proc/sys/net/core/rmem_max). The corresponding C call is
    /// `setsockopt(SO_RCVBUF)`.
    package func setReceiveBufferSize(_ bytes: Int32) throws(SystemError) {
        try setSocketOption(SO_RCVBUF, bytes, name: "SO_RCVBUF")
    }

    private func setSocketOption(_ option: Int32, _ value: Int32, name: String) throws(SystemError) {
        var value = value
        guard setsockopt(rawValue, SOL_SOCKET, option, &value, socklen_t(MemoryLayout<Int32>.size)) == 0 else {
            throw SystemError.current("setsockopt(\(name))", description)
        }
    }
}
