import MobiusSystem

/// Splits what a socket delivers into `\n`-terminated lines (a `\r` before `\n` is dropped).
struct LineReader {
    private let fd: FileDescriptor
    private var buffer: [UInt8] = []
    private var start = 0
    private var atEnd = false

    init(fd: FileDescriptor) {
        self.fd = fd
    }

    /// The next line without its terminator, or `nil` at end of file. A final line without `\n` is returned
    /// as a line.
    mutating func nextLine() throws(SystemError) -> ArraySlice<UInt8>? {
        var searchFrom = start
        while true {
            if let newline = buffer[searchFrom...].firstIndex(of: UInt8(ascii: "\n")) {
                var end = newline
                if end > start && buffer[end - 1] == UInt8(ascii: "\r") { end -= 1 }
                let line = buffer[start..<end]
                start = newline + 1
                return line
            }
            if atEnd {
                guard start < buffer.count else { return nil }
                let line = buffer[start...]
                start = buffer.count
                return line
            }
            if start > 0 {
                buffer.removeFirst(start)
                start = 0
            }
            searchFrom = buffer.count
            try fill()
        }
    }

    private mutating func fill() throws(SystemError) {
        let chunk = 64 * 1024
        let oldCount = buffer.count
        let fd = self.fd
        buffer.append(contentsOf: repeatElement(0, count: chunk))
        let result = buffer[oldCount...].withUnsafeMutableBytes { raw -> Result<Int, SystemError> in
            do throws(SystemError) {
                return .success(try fd.readInterruptibly(into: raw))
            } catch {
                return .failure(error)
            }
        }
        let received = (try? result.get()) ?? 0
        buffer.removeLast(chunk - received)
        if case .failure(let error) = result { throw error }
        if received == 0 { atEnd = true }
    }
}
