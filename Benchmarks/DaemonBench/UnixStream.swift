import MobiusSystem
import MobiusTestSupport

/// One AF_UNIX stream connection of the load generator. A value type over a file descriptor: copies share it,
/// `close()` ends it.
struct UnixStream: Sendable {
    let fd: FileDescriptor

    /// Connects to `path` (blocking socket).
    static func connect(path: String) throws(BenchError) -> UnixStream {
        UnixStream(fd: try BenchError.checking { () throws(SystemError) in try UnixSocket.connect(path: path) })
    }

    /// Big kernel buffers on our side, so the generator moves data in few, large system calls.
    func enlargeBuffers(bytes: Int32 = 1 << 20) {
        // Only a hint: the kernel caps the size, and a smaller buffer makes the run slower, not wrong.
        try? fd.setSendBufferSize(bytes)
        try? fd.setReceiveBufferSize(bytes)
    }

    func setNonBlocking() throws(BenchError) {
        try BenchError.checking { () throws(SystemError) in try fd.setNonBlocking() }
    }

    /// Writes all of `bytes` (blocking socket).
    func write(all bytes: UnsafeRawBufferPointer) throws(BenchError) {
        var offset = 0
        while offset < bytes.count {
            let outcome = try BenchError.checking { () throws(SystemError) in
                try fd.write(UnsafeRawBufferPointer(rebasing: bytes[offset...]))
            }
            guard case .transferred(let count) = outcome else {
                throw BenchError("write to \(fd) would block, but the socket is blocking")
            }
            offset += count
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

    /// Reads what is there (blocking until something is): the byte count, 0 at end of stream, -1 when a
    /// non-blocking socket has nothing.
    func read(into buffer: UnsafeMutableRawBufferPointer) throws(BenchError) -> Int {
        switch try BenchError.checking({ () throws(SystemError) in try fd.read(into: buffer) }) {
        case .transferred(let count): count
        case .endOfFile: 0
        case .wouldBlock: -1
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
        fd.close()
    }
}
