internal import Glibc

extension FileDescriptor {
    /// Reads up to `buffer.count` bytes, blocking; 0 means end of file.
    ///
    /// Throws EINTR once Ctrl-C is pending (see ``InterruptRequest``), else the read's errno. The corresponding
    /// C function is `read`.
    package func readInterruptibly(into buffer: UnsafeMutableRawBufferPointer) throws(SystemError) -> Int {
        let count = InterruptRequest.retrying { Glibc.read(rawValue, buffer.baseAddress, buffer.count) }
        guard count >= 0 else { throw SystemError.current("read", description) }
        return count
    }

    /// Writes all of `bytes`, blocking; a socket is written without raising SIGPIPE (a gone peer throws EPIPE).
    ///
    /// Throws EINTR once Ctrl-C is pending (see ``InterruptRequest``), else the call's errno. The corresponding
    /// C functions are `send` (with `MSG_NOSIGNAL`) for sockets and `write` otherwise.
    package func writeAllInterruptibly(_ bytes: [UInt8], socket: Bool = false) throws(SystemError) {
        var offset = 0
        while offset < bytes.count {
            let written = bytes.withUnsafeBytes { buffer in
                let start = buffer.baseAddress! + offset
                let length = buffer.count - offset
                return InterruptRequest.retrying {
                    socket
                        ? Glibc.send(rawValue, start, length, Int32(MSG_NOSIGNAL))
                        : Glibc.write(rawValue, start, length)
                }
            }
            guard written >= 0 else { throw SystemError.current(socket ? "send" : "write", description) }
            offset += written
        }
    }
}
