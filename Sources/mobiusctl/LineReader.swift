import MobiusSystem

/// Reads a socket's lines (`LineFramer`: `\n`-terminated, a `\r` before `\n` dropped, no length limit).
struct LineReader {
    private let fd: FileDescriptor
    private var lines = LineFramer()
    private var atEnd = false
    private var chunk = [UInt8](repeating: 0, count: 64 * 1024)

    init(fd: FileDescriptor) {
        self.fd = fd
    }

    /// The next line without its terminator, or `nil` at end of file. A final line without `\n` is returned
    /// as a line.
    mutating func nextLine() throws(SystemError) -> ArraySlice<UInt8>? {
        while true {
            if case .line(let line)? = lines.next(atEnd: atEnd) { return line }
            if atEnd { return nil }
            try fill()
        }
    }

    private mutating func fill() throws(SystemError) {
        let fd = self.fd
        let result = chunk.withUnsafeMutableBytes { raw in
            Result { () throws(SystemError) in try fd.readInterruptibly(into: raw) }
        }
        let received = try result.get()
        if received == 0 { atEnd = true }
        lines.append(chunk[..<received])
    }
}
