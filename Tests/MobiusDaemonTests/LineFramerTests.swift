import MobiusSystem
import Testing

/// The one line framer: lines across appends, `\r\n`, the limit and its two reports, the end of input.
@Suite("Line framer")
struct LineFramerTests {
    /// Every frame the framer gives for `chunks` appended one after another, then at the end if `atEnd`.
    static func frames(
        _ chunks: [String], maxLineBytes: Int = .max, keepsCarriageReturn: Bool = false, atEnd: Bool
    )
        -> [String]
    {
        var framer = LineFramer(maxLineBytes: maxLineBytes, keepsCarriageReturn: keepsCarriageReturn)
        var frames: [String] = []
        func drain(atEnd: Bool) {
            while let frame = framer.next(atEnd: atEnd) {
                switch frame {
                case .line(let bytes): frames.append("line " + String(decoding: bytes, as: UTF8.self))
                case .tooLong(let prefix): frames.append("tooLong " + String(decoding: prefix, as: UTF8.self))
                case .longLineEnded(let length): frames.append("ended \(length)")
                }
            }
        }
        for chunk in chunks {
            framer.append(Array(chunk.utf8)[...])
            drain(atEnd: false)
        }
        if atEnd { drain(atEnd: true) }
        return frames
    }

    @Test("a line split across appends comes out whole, once its newline is in; several lines in one append each")
    func splitAndPipelined() {
        #expect(Self.frames(["{\"ty", "pe\":1", "}\n"], atEnd: false) == ["line {\"type\":1}"])
        #expect(Self.frames(["a\nb\n\nc"], atEnd: false) == ["line a", "line b", "line "])
        #expect(Self.frames(["a\nb\n\nc"], atEnd: true) == ["line a", "line b", "line ", "line c"])
    }

    @Test("a \\r before \\n is dropped unless the framer keeps it; a lone \\r is a byte like any other")
    func carriageReturn() {
        #expect(Self.frames(["a\r\nb\rc\n"], atEnd: false) == ["line a", "line b\rc"])
        #expect(Self.frames(["a\r\n"], keepsCarriageReturn: true, atEnd: false) == ["line a\r"])
    }

    @Test("the limit counts a line without its line break: the limit is a line, one more is too long")
    func limitBoundary() {
        #expect(Self.frames(["abcd\r\n"], maxLineBytes: 4, atEnd: false) == ["line abcd"])
        #expect(
            Self.frames(["abcde\n", "ok\n"], maxLineBytes: 4, atEnd: false) == ["tooLong abcde", "ended 5", "line ok"])
        // Kept, the `\r` counts.
        #expect(
            Self.frames(["abcd\r\n"], maxLineBytes: 4, keepsCarriageReturn: true, atEnd: false) == [
                "tooLong abcd\r", "ended 5",
            ])
    }

    @Test("an unterminated line is too long as soon as no line within the limit could fit, and is dropped to its end")
    func unterminatedLongLine() {
        // 4 bytes plus a possible `\r`: not yet certain; a sixth byte makes it so.
        #expect(Self.frames(["abcd\r"], maxLineBytes: 4, atEnd: false) == [])
        #expect(Self.frames(["abcd\rx"], maxLineBytes: 4, atEnd: false) == ["tooLong abcd\rx"])
        #expect(
            Self.frames(["abcdef", "ghij", "kl\nok\n"], maxLineBytes: 4, atEnd: false) == [
                "tooLong abcdef", "ended 12", "line ok",
            ])
        #expect(Self.frames(["abcdef", "gh"], maxLineBytes: 4, atEnd: true) == ["tooLong abcdef", "ended 8"])
        // The prefix is the line's first bytes, at most `prefixBytes`.
        let long = String(repeating: "x", count: 1000)
        let frames = Self.frames([long + "\n"], maxLineBytes: 10, atEnd: false)
        #expect(frames == ["tooLong " + String(repeating: "x", count: LineFramer.prefixBytes), "ended 1000"])
    }

    @Test("a long line's dropped bytes are let go as they come: the buffer stays within the limit")
    func boundedMemory() {
        var framer = LineFramer(maxLineBytes: 100)
        framer.append(Array(repeating: UInt8(ascii: "x"), count: 200)[...])
        #expect(framer.peek() != nil)
        framer.take()
        for _ in 0..<1000 {
            framer.append(Array(repeating: UInt8(ascii: "x"), count: 4096)[...])
            #expect(framer.next() == nil)
            #expect(framer.bytes.count <= 200 + 4096, "bytes of the long line are dropped, not kept")
        }
        framer.append(Array("\nok\n".utf8)[...])
        #expect(framer.next() == .longLineEnded(length: 200 + 4096 * 1000))
        #expect(framer.next() == .line(Array("ok".utf8)[...]))
    }

    @Test("peek does not take: the same line comes back until taken; the final line needs atEnd")
    func peekThenTake() {
        var framer = LineFramer()
        framer.append(Array("one\ntwo".utf8)[...])
        #expect(framer.peek() == .line(Array("one".utf8)[...]))
        #expect(framer.peek() == .line(Array("one".utf8)[...]))
        framer.take()
        #expect(framer.peek() == nil)
        #expect(framer.peek(atEnd: true) == .line(Array("two".utf8)[...]))
        framer.take()
        #expect(framer.unconsumedCount == 0)
        #expect(framer.peek(atEnd: true) == nil)
    }

    @Test("a lowered limit applies to the line in progress, even past where the search stopped")
    func loweredLimit() {
        var framer = LineFramer(maxLineBytes: 100)
        framer.append(Array(repeating: UInt8(ascii: "x"), count: 50)[...])
        #expect(framer.peek() == nil)
        framer.maxLineBytes = 10
        guard case .tooLong? = framer.peek() else {
            Issue.record("a line of 50 bytes is over the lowered limit of 10")
            return
        }
    }

    @Test("consume skips bytes framed elsewhere; dropConsumed keeps what is not taken")
    func consumeAndDrop() {
        var framer = LineFramer(bytes: Array("a\nb\nc\n".utf8))
        framer.consume(2)
        #expect(framer.next() == .line(Array("b".utf8)[...]))
        framer.dropConsumed()
        framer.append(Array("d\n".utf8)[...])
        #expect(framer.next() == .line(Array("c".utf8)[...]))
        #expect(framer.next() == .line(Array("d".utf8)[...]))
        framer.dropConsumed()
        #expect(framer.bytes.isEmpty)
    }
}
