import Glibc

/// A level-triggered epoll instance over readable sockets. Swift's Glibc module does not map <sys/epoll.h>, so the
/// three calls are looked up with dlsym and called through C function pointers; `struct epoll_event` is laid out by
/// hand (packed, 12 bytes, on x86_64; 16 bytes elsewhere).
struct EpollSet {
    private typealias Create = @convention(c) (Int32) -> Int32
    private typealias Control = @convention(c) (Int32, Int32, Int32, UnsafeMutableRawPointer?) -> Int32
    private typealias Wait = @convention(c) (Int32, UnsafeMutableRawPointer?, Int32, Int32) -> Int32

    #if arch(x86_64)
        private static let eventSize = 12
        private static let dataOffset = 4
    #else
        private static let eventSize = 16
        private static let dataOffset = 8
    #endif
    private static let epollIn: UInt32 = 0x001
    private static let controlAdd: Int32 = 1
    private static let closeOnExec: Int32 = 0o2_000_000

    private let fd: Int32
    private let control: Control
    private let wait: Wait
    private let events: UnsafeMutableRawPointer
    private let capacity: Int

    init(capacity: Int) throws(BenchError) {
        let handle = dlopen(nil, RTLD_NOW)
        guard let create = dlsym(handle, "epoll_create1"), let control = dlsym(handle, "epoll_ctl"),
            let wait = dlsym(handle, "epoll_wait")
        else { throw BenchError("epoll_create1/epoll_ctl/epoll_wait not found in libc") }
        self.control = unsafeBitCast(control, to: Control.self)
        self.wait = unsafeBitCast(wait, to: Wait.self)
        fd = unsafeBitCast(create, to: Create.self)(Self.closeOnExec)
        guard fd >= 0 else { throw BenchError.system("epoll_create1") }
        self.capacity = capacity
        events = UnsafeMutableRawPointer.allocate(byteCount: capacity * Self.eventSize, alignment: 8)
    }

    /// Watches `socket` for input; `wait` reports it as `token`.
    func addReadable(_ socket: Int32, token: UInt64) throws(BenchError) {
        var event = [UInt8](repeating: 0, count: Self.eventSize)
        let result = event.withUnsafeMutableBytes { raw in
            raw.storeBytes(of: Self.epollIn, toByteOffset: 0, as: UInt32.self)
            raw.storeBytes(of: token, toByteOffset: Self.dataOffset, as: UInt64.self)
            return control(fd, Self.controlAdd, socket, raw.baseAddress)
        }
        guard result == 0 else { throw BenchError.system("epoll_ctl") }
    }

    /// Waits up to `timeoutMilliseconds` and calls `body` with each ready token; returns how many were ready
    /// (0 on timeout).
    func wait(timeoutMilliseconds: Int32, _ body: (UInt64) -> Void) throws(BenchError) -> Int {
        var count: Int32
        repeat {
            count = wait(fd, events, Int32(capacity), timeoutMilliseconds)
        } while count < 0 && errno == EINTR
        guard count >= 0 else { throw BenchError.system("epoll_wait") }
        for index in 0..<Int(count) {
            body(events.loadUnaligned(fromByteOffset: index * Self.eventSize + Self.dataOffset, as: UInt64.self))
        }
        return Int(count)
    }

    func close() {
        events.deallocate()
        _ = Glibc.close(fd)
    }
}
