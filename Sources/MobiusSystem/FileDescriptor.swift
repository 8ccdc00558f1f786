internal import Glibc

/// An open file descriptor owned by the daemon. Closing is explicit (`close()`); the value itself is just a number.
package struct FileDescriptor: Hashable, Sendable, CustomStringConvertible {
    /// The descriptor number.
    package let rawValue: Int32

    /// Wraps a descriptor number.
    package init(rawValue: Int32) {
        self.rawValue = rawValue
    }

    package var description: String { "fd \(rawValue)" }

    /// The outcome of a non-blocking read or write.
    package enum IOResult: Equatable, Sendable {
        /// This many bytes were transferred.
        case transferred(Int)
        /// The descriptor is not ready (EAGAIN).
        case wouldBlock
        /// Read: the peer closed its end (EOF).
        case endOfFile
    }

    /// Reads up to `buffer.count` bytes. The corresponding C function is `read`.
    package func read(into buffer: UnsafeMutableRawBufferPointer) throws(SystemError) -> IOResult {
        let count = retryingOnInterrupt { Glibc.read(rawValue, buffer.baseAddress, buffer.count) }
        if count > 0 { return .transferred(count) }
        if count == 0 { return .endOfFile }
        if SystemError.wouldBlock.contains(Glibc.errno) { return .wouldBlock }
        throw SystemError.current("read", description)
    }

    /// Writes up to `bytes.count` bytes without raising SIGPIPE on sockets. The corresponding C function is `send`
    /// (with MSG_NOSIGNAL) for sockets, `write` otherwise.
    package func write(_ bytes: UnsafeRawBufferPointer, socket: Bool = true) throws(SystemError) -> IOResult {
        let count = retryingOnInterrupt {
            socket
                ? Glibc.send(rawValue, bytes.baseAddress, bytes.count, Int32(MSG_NOSIGNAL))
                : Glibc.write(rawValue, bytes.baseAddress, bytes.count)
        }
        if count >= 0 { return .transferred(count) }
        if SystemError.wouldBlock.contains(Glibc.errno) { return .wouldBlock }
        throw SystemError.current(socket ? "send" : "write", description)
    }

    /// Writes all of `bytes`, blocking as needed (for stdout/stderr and other blocking descriptors).
    package func writeAll(_ bytes: [UInt8]) throws(SystemError) {
        var offset = 0
        while offset < bytes.count {
            let count = bytes.withUnsafeBytes { buffer in
                retryingOnInterrupt { Glibc.write(rawValue, buffer.baseAddress! + offset, buffer.count - offset) }
            }
            if count < 0 { throw SystemError.current("write", description) }
            offset += count
        }
    }

    /// Closes the descriptor. Errors are ignored: after close the number is released either way.
    package func close() {
        _ = Glibc.close(rawValue)
    }

    /// Sets or clears O_NONBLOCK.
    package func setNonBlocking(_ on: Bool = true) throws(SystemError) {
        let flags = fcntl(rawValue, F_GETFL)
        guard flags >= 0 else { throw SystemError.current("fcntl(F_GETFL)", description) }
        let updated = on ? flags | O_NONBLOCK : flags & ~O_NONBLOCK
        guard fcntl(rawValue, F_SETFL, updated) == 0 else { throw SystemError.current("fcntl(F_SETFL)", description) }
    }

    /// Standard output.
    package static let standardOutput = FileDescriptor(rawValue: 1)
    /// Standard error.
    package static let standardError = FileDescriptor(rawValue: 2)
}
