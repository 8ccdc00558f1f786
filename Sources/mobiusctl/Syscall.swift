import Glibc
import Synchronization

/// Every libc call mobiusctl makes, one thin wrapper each: errno becomes a ``SystemError``, EINTR is
/// retried unless Ctrl-C asked us to stop (then ``SystemError/isInterrupted`` is set).
enum Syscall {
    static let standardOutput: Int32 = 1
    static let standardError: Int32 = 2

    /// Opens an AF_UNIX stream socket connected to `path`.
    /// The corresponding C functions are `socket` and `connect`.
    static func connectUnixSocket(path: String) throws(SystemError) -> Int32 {
        var address = sockaddr_un()
        address.sun_family = sa_family_t(AF_UNIX)
        let pathBytes = Array(path.utf8)
        let capacity = MemoryLayout.size(ofValue: address.sun_path)
        guard pathBytes.count < capacity, !pathBytes.contains(0) else {
            throw SystemError(operation: "connect", errno: ENAMETOOLONG)
        }
        withUnsafeMutableBytes(of: &address.sun_path) { raw in
            raw.copyBytes(from: pathBytes)
            raw[pathBytes.count] = 0
        }
        let fd = socket(AF_UNIX, Int32(SOCK_STREAM.rawValue) | Int32(SOCK_CLOEXEC.rawValue), 0)
        guard fd >= 0 else { throw SystemError(operation: "socket", errno: errno) }
        while true {
            let result = withUnsafePointer(to: &address) { pointer in
                pointer.withMemoryRebound(to: sockaddr.self, capacity: 1) {
                    connect(fd, $0, socklen_t(MemoryLayout<sockaddr_un>.size))
                }
            }
            if result == 0 { return fd }
            let code = errno
            // A connect interrupted by a signal goes on in the background; a retry reports EISCONN.
            if code == EISCONN { return fd }
            if code == EINTR && !Interrupt.requested { continue }
            close(fd)
            throw SystemError(operation: "connect", errno: code)
        }
    }

    /// Reads up to `count` bytes into `buffer`; 0 means end of file.
    /// The corresponding C function is `read`.
    static func read(_ fd: Int32, into buffer: UnsafeMutableRawBufferPointer) throws(SystemError) -> Int {
        while true {
            let count = Glibc.read(fd, buffer.baseAddress, buffer.count)
            if count >= 0 { return count }
            let code = errno
            if code == EINTR && !Interrupt.requested { continue }
            throw SystemError(operation: "read", errno: code)
        }
    }

    /// Writes all of `bytes`; sockets are written without raising SIGPIPE.
    /// The corresponding C functions are `send` (with `MSG_NOSIGNAL`) and `write`.
    static func writeAll(_ fd: Int32, _ bytes: [UInt8], socket isSocket: Bool = false) throws(SystemError) {
        var offset = 0
        while offset < bytes.count {
            let written = bytes.withUnsafeBytes { raw in
                let start = raw.baseAddress! + offset
                let length = raw.count - offset
                return isSocket ? send(fd, start, length, Int32(MSG_NOSIGNAL)) : write(fd, start, length)
            }
            if written >= 0 {
                offset += written
                continue
            }
            let code = errno
            if code == EINTR && !Interrupt.requested { continue }
            throw SystemError(operation: isSocket ? "send" : "write", errno: code)
        }
    }

    /// Closes `fd`, ignoring errors (there is nothing left to flush on a socket we only read).
    /// The corresponding C function is `close`.
    static func close(_ fd: Int32) {
        _ = Glibc.close(fd)
    }

    /// Whether `fd` is a terminal. The corresponding C function is `isatty`.
    static func isTerminal(_ fd: Int32) -> Bool {
        isatty(fd) == 1
    }

    /// The real user id. The corresponding C function is `getuid`.
    static var userID: UInt32 { getuid() }

    /// The process environment as a dictionary. The corresponding C variable is `environ`.
    static func environment() -> [String: String] {
        var result: [String: String] = [:]
        var entry = environ
        while let pointer = entry.pointee {
            let text = String(cString: pointer)
            if let equals = text.firstIndex(of: "=") {
                result[String(text[..<equals])] = String(text[text.index(after: equals)...])
            }
            entry += 1
        }
        return result
    }

    /// Ends the process. The corresponding C function is `exit`.
    static func exit(_ status: Int32) -> Never {
        Glibc.exit(status)
    }

    /// The text for an errno value. The corresponding C function is `strerror`.
    static func describe(errno code: Int32) -> String {
        String(cString: strerror(code))
    }
}

/// Ctrl-C during a stream: the handler records the request and shuts the stream's socket down, so a
/// blocked `read` returns at once (EINTR or end of file) and the caller ends quietly.
enum Interrupt {
    private static let flag = Atomic<Bool>(false)
    private static let socket = Atomic<Int32>(-1)

    /// Whether SIGINT arrived since ``install(socket:)``.
    static var requested: Bool { flag.load(ordering: .acquiring) }

    /// Catches SIGINT (without SA_RESTART) and remembers `fd` to shut down when it arrives.
    /// The corresponding C functions are `sigaction` and, in the handler, `shutdown`.
    static func install(socket fd: Int32) {
        socket.store(fd, ordering: .releasing)
        var action = sigaction()
        action.__sigaction_handler.sa_handler = { _ in
            Interrupt.flag.store(true, ordering: .releasing)
            let fd = Interrupt.socket.load(ordering: .acquiring)
            if fd >= 0 { _ = shutdown(fd, Int32(SHUT_RDWR)) }
        }
        sigemptyset(&action.sa_mask)
        action.sa_flags = 0
        _ = sigaction(SIGINT, &action, nil)
    }
}
