/// Splits a byte stream into lines ending in `\n`: the one framer of the control socket, the parse thread, plugin
/// pipes, mobiusctl and the plugin SDK.
///
/// Bytes are appended as they arrive and complete lines are taken as slices of the buffer. A line is its bytes
/// before the `\n`, without a `\r` before it unless `keepsCarriageReturn`; its length is what `maxLineBytes` limits.
/// A line over the limit is reported as soon as that is certain (its newline is in, or more bytes are buffered than
/// a line within the limit and its line break could have) as `.tooLong` with its first bytes; taking that drops the
/// line's bytes through its newline, which gives `.longLineEnded` with how many bytes the line had before it. So a
/// long line never costs more memory than the limit, and a reader can act on it at once or when it ends.
package struct LineFramer {
    /// What the next bytes are.
    package enum Frame: Equatable {
        /// A complete line, a slice of `bytes`.
        case line(ArraySlice<UInt8>)
        /// A line over the limit: its first bytes (at most `prefixBytes`).
        case tooLong(prefix: ArraySlice<UInt8>)
        /// The end of a line reported `tooLong`: the bytes it had before its newline (or the end of input).
        case longLineEnded(length: Int)
    }

    /// How much of a long line `.tooLong` shows.
    package static var prefixBytes: Int { 256 }

    /// The longest line taken as a line; a reader may change it between frames (a reload of its limits).
    package var maxLineBytes: Int
    package let keepsCarriageReturn: Bool
    /// The buffer: the bytes not yet taken are `bytes[start...]`.
    package private(set) var bytes: [UInt8]
    package private(set) var start = 0
    /// Where the search for the next newline resumes.
    private var scanFrom = 0
    /// Bytes of a reported long line already dropped, while its end is awaited.
    private var longLineDropped: Int?
    /// What `take()` does with the frame `peek` last returned.
    private var peeked = Peeked.nothing

    private enum Peeked {
        case nothing
        case line(next: Int)
        case tooLong
        case longLineEnd(next: Int)
    }

    /// A framer over `bytes` (shared, not copied) and what is appended to them later.
    package init(bytes: [UInt8] = [], maxLineBytes: Int = .max, keepsCarriageReturn: Bool = false) {
        self.bytes = bytes
        self.maxLineBytes = maxLineBytes
        self.keepsCarriageReturn = keepsCarriageReturn
    }

    /// The bytes not yet taken.
    package var unconsumed: ArraySlice<UInt8> { bytes[start...] }

    /// How many bytes are not yet taken.
    package var unconsumedCount: Int { bytes.count - start }

    /// The most bytes a line within the limit occupies with its line break.
    private var framedLimit: Int {
        let lineBreak = keepsCarriageReturn ? 1 : 2
        return maxLineBytes > Int.max - lineBreak ? Int.max : maxLineBytes + lineBreak
    }

    /// Appends bytes that arrived (dropping taken ones first, see `dropConsumed`).
    package mutating func append(_ newBytes: ArraySlice<UInt8>) {
        dropConsumed()
        bytes.append(contentsOf: newBytes)
    }

    /// Appends bytes that arrived (dropping taken ones first, see `dropConsumed`).
    package mutating func append(_ newBytes: UnsafeRawBufferPointer) {
        dropConsumed()
        bytes.append(contentsOf: newBytes)
    }

    /// The largest buffer `dropConsumed` keeps once every byte in it is taken; a bigger one is let go.
    package static var largestKeptBuffer: Int { 1 << 20 }

    /// Lets taken bytes go: all of them (keeping a buffer of up to `largestKeptBuffer`), or a taken head over 64 KiB.
    /// A slice taken earlier keeps its bytes: the buffer is copied on write.
    package mutating func dropConsumed() {
        guard start > 0 else { return }
        if start == bytes.count {
            if bytes.capacity > Self.largestKeptBuffer { bytes = [] } else { bytes.removeAll(keepingCapacity: true) }
        } else if start > 65536 {
            bytes.removeFirst(start)
        } else {
            return
        }
        scanFrom -= start
        start = 0
        peeked = .nothing
    }

    /// Forgets every byte, taken or not.
    package mutating func removeAll() {
        bytes.removeAll()
        start = 0
        scanFrom = 0
        longLineDropped = nil
        peeked = .nothing
    }

    /// Skips `count` bytes that the caller framed itself (whole lines, as the parse thread did).
    package mutating func consume(_ count: Int) {
        start += count
        scanFrom = max(scanFrom, start)
        peeked = .nothing
    }

    /// The next frame, without taking it; `nil` while the next line is incomplete. `atEnd`: no more bytes will come,
    /// so an unterminated last line is a line.
    package mutating func peek(atEnd: Bool = false) -> Frame? {
        peeked = .nothing
        if let dropped = longLineDropped { return peekLongLineEnd(dropped: dropped, atEnd: atEnd) }
        guard start < bytes.count else { return nil }
        let window = framedLimit
        let searchEnd = bytes.count - start <= window ? bytes.count : start + window
        // `min`: a lowered limit can put the resumed search past the end of the new window.
        let searchStart = min(max(scanFrom, start), searchEnd)
        let found = ByteSearch.firstIndex(of: UInt8(ascii: "\n"), in: bytes[searchStart..<searchEnd])
        var end: Int
        let next: Int
        if let found {
            end = found
            next = found + 1
        } else if atEnd {
            end = bytes.count
            next = bytes.count
        } else {
            scanFrom = searchEnd
            guard bytes.count - start > window - 1 else { return nil }
            // The prefix stops at the line's newline when it is just past the window.
            let prefixEnd = min(bytes.count, start + Self.prefixBytes)
            let newline =
                searchEnd < prefixEnd
                ? ByteSearch.firstIndex(of: UInt8(ascii: "\n"), in: bytes[searchEnd..<prefixEnd]) : nil
            return tooLong(end: newline ?? bytes.count)
        }
        if !keepsCarriageReturn && end > start && bytes[end - 1] == UInt8(ascii: "\r") { end -= 1 }
        guard end - start <= maxLineBytes else { return tooLong(end: end) }
        peeked = .line(next: next)
        return .line(bytes[start..<end])
    }

    private mutating func tooLong(end: Int) -> Frame {
        peeked = .tooLong
        return .tooLong(prefix: bytes[start..<min(end, start + Self.prefixBytes)])
    }

    private mutating func peekLongLineEnd(dropped: Int, atEnd: Bool) -> Frame? {
        if let newline = ByteSearch.firstIndex(of: UInt8(ascii: "\n"), in: bytes[start...]) {
            peeked = .longLineEnd(next: newline + 1)
            return .longLineEnded(length: dropped + newline - start)
        }
        if atEnd {
            peeked = .longLineEnd(next: bytes.count)
            return .longLineEnded(length: dropped + bytes.count - start)
        }
        longLineDropped = dropped + bytes.count - start
        start = bytes.count
        scanFrom = start
        return nil
    }

    /// Takes the frame `peek` returned last.
    package mutating func take() {
        switch peeked {
        case .nothing:
            return
        case .line(let next):
            start = next
        case .tooLong:
            longLineDropped = 0
        case .longLineEnd(let next):
            start = next
            longLineDropped = nil
        }
        scanFrom = start
        peeked = .nothing
    }

    /// The next frame, taken.
    package mutating func next(atEnd: Bool = false) -> Frame? {
        let frame = peek(atEnd: atEnd)
        take()
        return frame
    }
}
