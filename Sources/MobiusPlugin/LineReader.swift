import MobiusSystem

/// Splits a blocking descriptor's bytes into lines of at most a limit.
///
/// A `\r` before `\n` is dropped. A line longer than the limit is skipped up to its newline and reported once as
/// ``Item/tooLong(_:)``, so a huge line never costs more than the limit in memory.
struct LineReader {
    /// What `next` found.
    enum Item: Equatable {
        /// A complete line, without its newline.
        case line([UInt8])
        /// A line of this many bytes (at least) that exceeded the limit and was skipped.
        case tooLong(Int)
        /// The end of input (a final line without a newline is returned first).
        case end
    }

    private let input: FileDescriptor
    private let maxLineBytes: Int
    private var buffer: [UInt8] = []
    private var start = 0
    private var skipping: Int? = nil
    private var atEnd = false
    private var chunk = [UInt8](repeating: 0, count: 65536)

    init(input: FileDescriptor, maxLineBytes: Int) {
        self.input = input
        self.maxLineBytes = maxLineBytes
    }

    /// Whether a complete line is already buffered, so `next` will not block for it.
    var hasBufferedLine: Bool { buffer[start...].contains(UInt8(ascii: "\n")) }

    /// The next line, skipped line or the end. Blocks until one is complete.
    mutating func next() -> Item {
        while true {
            if let newline = buffer[start...].firstIndex(of: UInt8(ascii: "\n")) {
                let lineStart = start
                start = newline + 1
                if let skipped = skipping {
                    skipping = nil
                    return .tooLong(skipped + newline - lineStart)
                }
                var end = newline
                if end > lineStart && buffer[end - 1] == UInt8(ascii: "\r") { end -= 1 }
                // The limit excludes the line break (as the daemon's own limits do).
                if end - lineStart > maxLineBytes { return .tooLong(end - lineStart) }
                return .line(Array(buffer[lineStart..<end]))
            }
            compact()
            if buffer.count > maxLineBytes + 1 {
                // No newline within the limit: forget what we have and skip to the next newline.
                skipping = (skipping ?? 0) + buffer.count
                buffer.removeAll(keepingCapacity: true)
            }
            if atEnd {
                if let skipped = skipping {
                    skipping = nil
                    return .tooLong(skipped + buffer.count)
                }
                if buffer.isEmpty { return .end }
                let line = buffer
                buffer.removeAll()
                return line.count > maxLineBytes ? .tooLong(line.count) : .line(line)
            }
            fill()
        }
    }

    /// Drops consumed bytes from the front of the buffer.
    private mutating func compact() {
        if start > 0 {
            buffer.removeFirst(start)
            start = 0
        }
    }

    private mutating func fill() {
        let count = chunk.withUnsafeMutableBytes { raw -> Int in
            do {
                switch try input.read(into: raw) {
                case .transferred(let count): return count
                case .endOfFile, .wouldBlock: return 0
                }
            } catch {
                return 0
            }
        }
        if count == 0 {
            atEnd = true
        } else {
            buffer += chunk[0..<count]
        }
    }
}
