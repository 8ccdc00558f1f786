/// Counts `\n` bytes: every reply both servers send ends in one (`{"ok":true,...}\n`, `:N\r\n`), and a RESP
/// push message is a fixed number of lines, so counting newlines counts replies without parsing or allocating.
enum LineCounter {
    @inline(__always)
    static func count(_ bytes: UnsafeRawBufferPointer) -> Int {
        var lines = 0
        for byte in bytes where byte == 0x0A { lines &+= 1 }
        return lines
    }
}
