import Testing

@testable import MobiusDaemon

/// `Array.empty()`, which the per-pass buffers use instead of `removeAll(keepingCapacity: true)`.
struct ArrayEmptyingTests {
    final class Counted {
        nonisolated(unsafe) static var alive = 0
        init() { Self.alive += 1 }
        deinit { Self.alive -= 1 }
    }

    @Test(arguments: [0, 1, 8, 9, 1000])
    func emptiesAndKeepsTheBuffer(count: Int) {
        var bytes = [UInt8](repeating: 7, count: count)
        bytes.reserveCapacity(2048)
        let capacity = bytes.capacity
        bytes.empty()
        #expect(bytes.isEmpty)
        #expect(bytes.capacity == capacity)
        bytes.append(1)
        #expect(bytes == [1])
    }

    @Test func letsABufferOverTheLimitGo() {
        var bytes = [UInt8](repeating: 7, count: 100)
        bytes.empty(keepingAtMost: 64)
        #expect(bytes.isEmpty)
        #expect(bytes.capacity < 64)
        var small = [UInt8](repeating: 7, count: 10)
        let capacity = small.capacity
        small.empty(keepingAtMost: 64)
        #expect(small.isEmpty && small.capacity == capacity)
    }

    @Test func releasesEveryElement() {
        var objects = (0..<5).map { _ in Counted() }
        #expect(Counted.alive == 5)
        objects.empty()
        #expect(Counted.alive == 0)
        #expect(objects.capacity >= 5)
    }

    @Test func leavesACopyAsItWas() {
        var bytes: [UInt8] = [1, 2, 3]
        let copy = bytes
        bytes.empty()
        #expect(bytes.isEmpty)
        #expect(copy == [1, 2, 3])
    }
}
