internal import CLinux
internal import Glibc

/// A counter descriptor one thread signals and another waits on (in epoll). The corresponding C function is
/// `eventfd`.
package final class EventFD: Sendable {
    package let fd: FileDescriptor

    package init() throws(SystemError) {
        let raw = eventfd(0, MOBIUSD_EFD_FLAGS)
        guard raw >= 0 else { throw SystemError.current("eventfd") }
        fd = FileDescriptor(rawValue: raw)
    }

    deinit {
        fd.close()
    }

    /// Wakes the waiter. Never blocks (the counter saturating is harmless: it is already readable).
    package func signal() {
        var one: UInt64 = 1
        _ = retryingOnInterrupt { Glibc.write(fd.rawValue, &one, 8) }
    }

    /// Resets the counter after a wake-up.
    package func drain() {
        var value: UInt64 = 0
        _ = retryingOnInterrupt { Glibc.read(fd.rawValue, &value, 8) }
    }
}
