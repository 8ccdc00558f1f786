import Testing

@testable import MobiusDaemon

/// `HandOff`: the parse thread's batch result, taken once by the reactor thread and owned outright.
struct HandOffTests {
    @Test func givesItsValueOnceAndKeepsNoReference() {
        var bytes = [UInt8](repeating: 1, count: 64)
        let handOff = HandOff(bytes)
        bytes = []
        guard var taken = handOff.take() else {
            Issue.record("the first take gave nothing")
            return
        }
        #expect(taken == [UInt8](repeating: 1, count: 64))
        // The hand-off no longer holds the array: the taker's is the only reference, so changing it copies nothing.
        #expect(changesInPlace(&taken))
        #expect(handOff.take() == nil)
    }

    private func changesInPlace(_ array: inout [UInt8]) -> Bool {
        let before = array.withUnsafeBufferPointer { $0.baseAddress }
        array[0] = 2
        return array.withUnsafeBufferPointer { $0.baseAddress } == before
    }
}
