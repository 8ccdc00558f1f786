internal import CLinux
internal import Glibc

/// An epoll instance: the I/O thread's wait primitive. Each registration carries a 64-bit token.
package final class Epoll: @unchecked Sendable {
    // @unchecked: the descriptor is used by the I/O thread only; other threads wake it through an EventFD.

    /// Readiness flags.
    package struct Events: OptionSet, Sendable {
        package let rawValue: UInt32
        package init(rawValue: UInt32) { self.rawValue = rawValue }
        package static let readable = Events(rawValue: MOBIUSD_EPOLLIN)
        package static let writable = Events(rawValue: MOBIUSD_EPOLLOUT)
        package static let hangUp = Events(rawValue: MOBIUSD_EPOLLHUP)
        package static let error = Events(rawValue: MOBIUSD_EPOLLERR)
    }

    package let fd: FileDescriptor
    // Only the waiting thread touches the buffer, once per round: no exclusivity checks.
    @exclusivity(unchecked) private var buffer: [epoll_event]

    package init(capacity: Int = 256) throws(SystemError) {
        let raw = epoll_create1(MOBIUSD_EPOLL_CLOEXEC)
        guard raw >= 0 else { throw SystemError.current("epoll_create1") }
        fd = FileDescriptor(rawValue: raw)
        buffer = Array(repeating: epoll_event(), count: capacity)
    }

    deinit {
        fd.close()
    }

    package func add(_ target: FileDescriptor, events: Events, token: UInt64) throws(SystemError) {
        try control(EPOLL_CTL_ADD, target, events, token)
    }

    package func modify(_ target: FileDescriptor, events: Events, token: UInt64) throws(SystemError) {
        try control(EPOLL_CTL_MOD, target, events, token)
    }

    package func remove(_ target: FileDescriptor) {
        var event = epoll_event()
        _ = epoll_ctl(fd.rawValue, EPOLL_CTL_DEL, target.rawValue, &event)
    }

    private func control(
        _ operation: Int32, _ target: FileDescriptor, _ events: Events, _ token: UInt64
    )
        throws(SystemError)
    {
        var event = epoll_event()
        event.events = events.rawValue
        event.data.u64 = token
        guard epoll_ctl(fd.rawValue, operation, target.rawValue, &event) == 0 else {
            throw SystemError.current("epoll_ctl", target.description)
        }
    }

    /// Waits up to `timeoutMilliseconds` (-1: forever) and calls `body` for each ready registration.
    package func wait(timeoutMilliseconds: Int32, _ body: (UInt64, Events) -> Void) throws(SystemError) {
        let count = buffer.withUnsafeMutableBufferPointer { events in
            epoll_wait(fd.rawValue, events.baseAddress, Int32(events.count), timeoutMilliseconds)
        }
        if count < 0 {
            if Glibc.errno == EINTR { return }
            throw SystemError.current("epoll_wait")
        }
        for index in 0..<Int(count) {
            body(buffer[index].data.u64, Events(rawValue: buffer[index].events))
        }
    }
}
