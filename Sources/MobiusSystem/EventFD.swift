/// A counter descriptor one thread signals and another waits on (in epoll). The corresponding C function is
/// `eventfd`.
package final class EventFD: Sendable {
    package let fd: FileDescriptor

    package init() throws(SystemError) {
        fd = FileDescriptor(rawValue: try Syscall.eventFD().get("eventfd"))
    }

    deinit {
        fd.close()
    }

    /// Wakes the waiter. Never blocks (the counter saturating is harmless: it is already readable).
    package func signal() {
        var one: UInt64 = 1
        _ = Syscall.write(fd.rawValue, &one, 8)
    }

    /// Resets the counter after a wake-up.
    package func drain() {
        var value: UInt64 = 0
        _ = Syscall.read(fd.rawValue, &value, 8)
    }
}
