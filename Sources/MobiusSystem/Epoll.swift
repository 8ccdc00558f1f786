/// An epoll instance: the reactor thread's wait primitive. Each registration carries a 64-bit token.
package final class Epoll: @unchecked Sendable {
    // @unchecked: only the thread that waits uses it; other threads wake it through an EventFD.

    /// Readiness flags.
    package struct Events: OptionSet, Sendable {
        package let rawValue: UInt32
        package init(rawValue: UInt32) { self.rawValue = rawValue }
        package static let readable = Events(rawValue: Syscall.epollReadable)
        package static let writable = Events(rawValue: Syscall.epollWritable)
        package static let hangUp = Events(rawValue: Syscall.epollHangUp)
        package static let error = Events(rawValue: Syscall.epollError)
    }

    package let fd: FileDescriptor
    /// Where `epoll_wait` puts the ready events; only the waiting thread touches it.
    private var buffer: [Syscall.EpollEvent]

    package init(capacity: Int = 256) throws(SystemError) {
        fd = FileDescriptor(rawValue: try Syscall.epollCreate().get("epoll_create1"))
        buffer = Array(repeating: Syscall.EpollEvent(), count: capacity)
    }

    deinit {
        fd.close()
    }

    package func add(_ target: FileDescriptor, events: Events, token: UInt64) throws(SystemError) {
        try Syscall.epollControl(fd.rawValue, .add, target.rawValue, events: events.rawValue, token: token)
            .get("epoll_ctl", target.description)
    }

    package func modify(_ target: FileDescriptor, events: Events, token: UInt64) throws(SystemError) {
        try Syscall.epollControl(fd.rawValue, .modify, target.rawValue, events: events.rawValue, token: token)
            .get("epoll_ctl", target.description)
    }

    package func remove(_ target: FileDescriptor) {
        _ = Syscall.epollControl(fd.rawValue, .remove, target.rawValue)
    }

    /// Waits up to `timeoutMilliseconds` (-1: forever) and calls `body` for each ready registration.
    package func wait(timeoutMilliseconds: Int32, _ body: (UInt64, Events) -> Void) throws(SystemError) {
        // The buffer is moved out while the handlers run, so no access to the stored property spans them (its
        // accesses are then proven exclusive at compile time instead of checked each round).
        var events: [Syscall.EpollEvent] = []
        swap(&events, &buffer)
        defer { swap(&events, &buffer) }
        try Syscall.epollWait(fd.rawValue, &events, timeoutMilliseconds: timeoutMilliseconds) { token, events in
            body(token, Events(rawValue: events))
        }.get("epoll_wait")
    }
}
