import MobiusSystem

/// Splits a blocking descriptor's bytes into lines of at most a limit (`LineFramer`).
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
    private var lines: LineFramer
    private var atEnd = false
    private var chunk = [UInt8](repeating: 0, count: 65536)

    init(input: FileDescriptor, maxLineBytes: Int) {
        self.input = input
        lines = LineFramer(maxLineBytes: maxLineBytes)
    }

    /// Whether a complete line is already buffered, so `next` will not block for it.
    var hasBufferedLine: Bool { lines.unconsumed.contains(UInt8(ascii: "\n")) }

    /// The next line, skipped line or the end. Blocks until one is complete.
    mutating func next() -> Item {
        while true {
            switch lines.next(atEnd: atEnd) {
            case .line(let line)?:
                return .line(Array(line))
            case .tooLong?:
                // Reported when it ends, with its length.
                continue
            case .longLineEnded(let length)?:
                return .tooLong(length)
            case nil:
                if atEnd { return .end }
                fill()
            }
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
            lines.append(chunk[..<count])
        }
    }
}
