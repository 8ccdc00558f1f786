import Glibc

/// One AF_UNIX stream connection of the load generator. A value type over a file descriptor: copies share it,
/// `close()` ends it.
struct UnixStream: Sendable {
    let fd: Int32

    /// Connects to `path` (blocking socket).
    static func connect(path: String) throws(BenchError) -> UnixStream {
        let fd = socket(AF_UNIX, Int32(SOCK_STREAM.rawValue) | Int32(SOCK_CLOEXEC.rawValue), 0)
        guard fd >= 0 else { throw BenchError.system("socket") }
        var address = sockaddr_un()
        address.sun_family = sa_family_t(AF_UNIX)
        let pathBytes = Array(path.utf8)
        let capacity = MemoryLayout.size(ofValue: address.sun_path)
        guard pathBytes.count < capacity else {
            Glibc.close(fd)
            throw BenchError("socket path too long (\(pathBytes.count) bytes): \(path)")
        }
        withUnsafeMutableBytes(of: &address.sun_path) { raw in
            raw.copyBytes(from: pathBytes)
            raw[pathBytes.count] = 0
        }
        let result = withUnsafePointer(to: &address) { pointer in
            pointer.withMemoryRebound(to: sockaddr.self, capacity: 1) {
                Glibc.connect(fd, $0, socklen_t(MemoryLayout<sockaddr_un>.size))
            }
        }
        guard result == 0 else {
            let error = BenchError.system("connect", path)
            Glibc.close(fd)
            throw error
        }
        return UnixStream(fd: fd)
    }

    /// Big kernel buffers on our side, so the generator moves data in few, large system calls.
    func enlargeBuffers(bytes: Int32 = 1 << 20) {
        var size = bytes
        setsockopt(fd, SOL_SOCKET, SO_SNDBUF, &size, socklen_t(MemoryLayout<Int32>.size))
        setsockopt(fd, SOL_SOCKET, SO_RCVBUF, &size, socklen_t(MemoryLayout<Int32>.size))
    }

    func setNonBlocking() {
        let flags = fcntl(fd, F_GETFL)
        _ = fcntl(fd, F_SETFL, flags | O_NONBLOCK)
    }

    /// Writes all of `bytes` (blocking socket).
    func write(all bytes: UnsafeRawBufferPointer) throws(BenchError) {
        var offset = 0
        while offset < bytes.count {
            let written = Glibc.write(fd, bytes.baseAddress! + offset, bytes.count - offset)
            if written < 0 {
                if errno == EINTR { continue }
                throw BenchError.system("write")
            }
            offset += written
        }
    }

    func write(all bytes: [UInt8]) throws(BenchError) {
        // Array.withUnsafeBytes is not typed-throws; carry the error out by hand.
        var failure: BenchError?
        bytes.withUnsafeBytes { raw in
            do throws(BenchError) { try write(all: raw) } catch { failure = error }
        }
        if let failure { throw failure }
    }

    /// Reads what is there (blocking until something is): the byte count, 0 at end of stream, -1 for EAGAIN on a
    /// non-blocking socket.
    func read(into buffer: UnsafeMutableRawBufferPointer) throws(BenchError) -> Int {
        while true {
            let count = Glibc.read(fd, buffer.baseAddress!, buffer.count)
            if count >= 0 { return count }
            if errno == EINTR { continue }
            if errno == EAGAIN || errno == EWOULDBLOCK { return -1 }
            throw BenchError.system("read")
        }
    }

    /// Reads until `lines` more newlines arrived; returns the bytes read (for checks; small replies only).
    func readLines(_ lines: Int, into buffer: UnsafeMutableRawBufferPointer) throws(BenchError) -> [UInt8] {
        var seen = 0
        var text: [UInt8] = []
        while seen < lines {
            let count = try read(into: buffer)
            guard count > 0 else { throw BenchError("connection closed while waiting for a reply") }
            let chunk = UnsafeRawBufferPointer(rebasing: buffer[0..<count])
            seen += LineCounter.count(chunk)
            text.append(contentsOf: chunk)
        }
        return text
    }

    func close() {
        _ = Glibc.close(fd)
    }
}
