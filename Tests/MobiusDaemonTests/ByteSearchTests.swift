import MobiusSystem
import Testing

/// The memchr-based newline search that splits request lines, plugin messages and batches.
struct ByteSearchTests {
    private let bytes = Array("ab\ncd\n\nef".utf8)

    @Test func findsTheFirstByteAtOrAfterTheRangeStart() {
        #expect(ByteSearch.firstIndex(of: 0x0A, in: bytes[0..<bytes.count]) == 2)
        #expect(ByteSearch.firstIndex(of: 0x0A, in: bytes[3..<bytes.count]) == 5)
        #expect(ByteSearch.firstIndex(of: 0x0A, in: bytes[6..<bytes.count]) == 6)
    }

    @Test func looksOnlyInsideTheRange() {
        #expect(ByteSearch.firstIndex(of: 0x0A, in: bytes[0..<2]) == nil)
        #expect(ByteSearch.firstIndex(of: 0x0A, in: bytes[7..<bytes.count]) == nil)
        #expect(ByteSearch.firstIndex(of: 0x0A, in: bytes[4..<4]) == nil)
        #expect(ByteSearch.firstIndex(of: 0x0A, in: [UInt8]()[0..<0]) == nil)
    }

    @Test func aSliceAnswersWithIndicesOfItsArray() {
        #expect(ByteSearch.firstIndex(of: 0x0A, in: bytes[3...]) == 5)
        #expect(ByteSearch.firstIndex(of: UInt8(ascii: "f"), in: bytes[3...]) == 8)
        #expect(ByteSearch.firstIndex(of: UInt8(ascii: "a"), in: bytes[1...]) == nil)
        #expect(ByteSearch.firstIndex(of: 0x0A, in: bytes[9...]) == nil)
    }
}
