internal import CLinux
internal import Glibc
import MobiusSystem

/// A bound AF_UNIX datagram socket that receives: what a service manager listens on for sd_notify messages
/// (`NOTIFY_SOCKET`), so tests and benchmarks can stand in for systemd. Blocking, close-on-exec.
package final class DatagramSocket: Sendable {
    /// The descriptor.
    package let fd: FileDescriptor
    /// The path it is bound to.
    package let path: String

    /// Binds a new socket at `path` (which must not exist). The corresponding C functions are `socket` and `bind`.
    package init(binding path: String) throws(SystemError) {
        let raw = socket(AF_UNIX, MOBIUSD_SOCK_DGRAM_CLOEXEC, 0)
        guard raw >= 0 else { throw SystemError.current("socket") }
        let fd = FileDescriptor(rawValue: raw)
        do throws(SystemError) {
            try UnixSocket.bind(fd, to: path)
        } catch {
            fd.close()
            throw error
        }
        self.fd = fd
        self.path = path
    }

    /// Receives one datagram, waiting at most `timeoutNanoseconds` (0: only what is queued); `nil` when none came.
    /// Descriptors passed along with it (SCM_RIGHTS) are closed at once. A datagram longer than `maxBytes` is cut.
    /// The corresponding C functions are `poll` and `recvmsg`.
    package func receive(maxBytes: Int = 4096, timeoutNanoseconds: UInt64) throws(SystemError) -> [UInt8]? {
        let deadline = SystemProcess.monotonicNanoseconds() + timeoutNanoseconds
        var buffer = [UInt8](repeating: 0, count: maxBytes)
        while true {
            let received = buffer.withUnsafeMutableBytes { raw in
                mobiusd_receive_datagram(fd.rawValue, raw.baseAddress, UInt(raw.count), MOBIUSD_MSG_DONTWAIT)
            }
            if received >= 0 { return Array(buffer.prefix(Int(received))) }
            let error = SystemError.current("recvmsg", path)
            guard error.errno == .wouldBlock || error.errno == .interrupted else { throw error }
            let now = SystemProcess.monotonicNanoseconds()
            guard now < deadline else { return nil }
            let milliseconds = Int32(min((deadline - now + 999_999) / 1_000_000, UInt64(Int32.max)))
            var request = pollfd(fd: fd.rawValue, events: Int16(POLLIN), revents: 0)
            _ = poll(&request, 1, milliseconds)
        }
    }

    /// Closes the socket and removes its path.
    package func close() {
        fd.close()
        _ = unlink(path)
    }
}
