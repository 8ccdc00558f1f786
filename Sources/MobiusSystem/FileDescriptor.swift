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
        switch Syscall.read(rawValue, buffer.baseAddress, buffer.count) {
        case .success(0): return .endOfFile
        case .success(let count): return .transferred(count)
        case .failure(.wouldBlock): return .wouldBlock
        case .failure(let errno): throw SystemError(errno: errno, operation: "read", subject: description)
        }
    }

    /// Writes up to `bytes.count` bytes without raising SIGPIPE on sockets. The corresponding C function is `send`
    /// (with MSG_NOSIGNAL) for sockets, `write` otherwise.
    package func write(_ bytes: UnsafeRawBufferPointer, socket: Bool = true) throws(SystemError) -> IOResult {
        let result =
            socket
            ? Syscall.send(rawValue, bytes.baseAddress, bytes.count)
            : Syscall.write(rawValue, bytes.baseAddress, bytes.count)
        switch result {
        case .success(let count): return .transferred(count)
        case .failure(.wouldBlock): return .wouldBlock
        case .failure(let errno):
            throw SystemError(errno: errno, operation: socket ? "send" : "write", subject: description)
        }
    }

    /// Writes all of `bytes`, blocking as needed (for stdout/stderr and other blocking descriptors).
    package func writeAll(_ bytes: [UInt8]) throws(SystemError) {
        var offset = 0
        while offset < bytes.count {
            let written = bytes.withUnsafeBytes { buffer in
                Syscall.write(rawValue, buffer.baseAddress! + offset, buffer.count - offset)
            }
            offset += try written.get("write", description)
        }
    }

    /// Closes the descriptor. Errors are ignored: after close the number is released either way.
    package func close() {
        Syscall.close(rawValue)
    }

    /// Sets or clears O_NONBLOCK.
    package func setNonBlocking(_ on: Bool = true) throws(SystemError) {
        try Syscall.setNonBlocking(rawValue, on)
    }

    /// Standard output.
    package static let standardOutput = FileDescriptor(rawValue: 1)
    /// Standard error.
    package static let standardError = FileDescriptor(rawValue: 2)
}
