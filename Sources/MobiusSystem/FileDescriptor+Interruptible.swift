extension FileDescriptor {
    /// Reads up to `buffer.count` bytes, blocking; 0 means end of file.
    ///
    /// Throws EINTR once Ctrl-C is pending (see ``InterruptRequest``), else the read's errno. The corresponding
    /// C function is `read`.
    package func readInterruptibly(into buffer: UnsafeMutableRawBufferPointer) throws(SystemError) -> Int {
        try Syscall.read(rawValue, buffer.baseAddress, buffer.count, interruptible: true).get("read", description)
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
                return socket
                    ? Syscall.send(rawValue, start, length, interruptible: true)
                    : Syscall.write(rawValue, start, length, interruptible: true)
            }
            offset += try written.get(socket ? "send" : "write", description)
        }
    }
}
