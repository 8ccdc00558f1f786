import Foundation
import Synchronization
import Testing

@testable import MobiusDaemon

@Suite("The queues between the daemon's threads", .serialized, .timeLimit(.minutes(1)))
struct QueueTests {
    @Test("offer reports the room left; a full queue marks the producer paused until the loop takes everything")
    func inboundBackpressure() {
        let queue = InboundQueue<Int>(capacity: 4)
        var batch = [1, 2, 3]
        #expect(queue.offer(&batch) == 1)
        #expect(batch.isEmpty, "offer takes the whole batch")
        batch = [4]
        #expect(queue.offer(&batch) == 0, "no room left: the I/O thread must pause")
        var taken: [Int] = []
        let producerWasPaused = queue.takeAll(into: &taken, watch: false)
        #expect(taken == [1, 2, 3, 4], "FIFO, nothing dropped")
        #expect(producerWasPaused, "the loop must tell the I/O thread there is room again")
        batch = [5]
        #expect(queue.offer(&batch) == 3)
        taken.removeAll()
        #expect(!queue.takeAll(into: &taken, watch: false))
        #expect(taken == [5])
    }

    /// Runs `body` on a plain thread (the queues block their callers; cooperative-pool threads must not block).
    func onThread(_ body: @escaping @Sendable () -> Void) -> DispatchSemaphore {
        let done = DispatchSemaphore(value: 0)
        Thread {
            body()
            done.signal()
        }.start()
        return done
    }

    @Test("an empty hand-over neither adds nor clears the loop's wake-up (a lost wake-up once hung the daemon)")
    func emptyOfferKeepsWakeUp() {
        let queue = InboundQueue<Int>(capacity: 8)
        let taken = Mutex<[Int]>([])
        let done = onThread {
            var batch: [Int] = []
            _ = queue.takeAll(into: &batch, watch: false)
            taken.withLock { $0 = batch }
        }
        Thread.sleep(forTimeInterval: 0.05)  // let the taker go to sleep first
        var empty: [Int] = []
        _ = queue.offer(&empty)
        var one = [7]
        _ = queue.offer(&one)
        #expect(done.wait(timeout: .now() + 5) == .success, "the loop was never woken")
        #expect(taken.withLock { $0 } == [7])
    }

    @Test("blocking pushes from effect threads wait for room; the loop's own pushes may exceed the bound")
    func blockingPush() {
        let queue = InboundQueue<Int>(capacity: 1)
        queue.push(1, overCapacity: false)
        queue.push(2, overCapacity: true)
        let pushed = onThread { queue.push(3, overCapacity: false) }
        #expect(pushed.wait(timeout: .now() + 0.1) == .timedOut, "a push into a full queue waits")
        var taken: [Int] = []
        _ = queue.takeAll(into: &taken, watch: false)
        #expect(taken == [1, 2])
        #expect(pushed.wait(timeout: .now() + 5) == .success)
        taken.removeAll()
        _ = queue.takeAll(into: &taken, watch: false)
        #expect(taken == [3], "the blocked push went through once there was room")
    }

    @Test("the outbound queue hands over everything in order and reports waiting messages")
    func outbound() throws {
        let queue = try OutboundQueue()
        #expect(!queue.watch(nanoseconds: 1_000))
        queue.send([.inboundSpace, .stopped])
        #expect(queue.watch(nanoseconds: 1_000))
        let messages = queue.takeAll()
        #expect(messages.count == 2)
        guard case .inboundSpace = messages[0], case .stopped = messages[1] else {
            Issue.record("out of order: \(messages)")
            return
        }
        #expect(!queue.watch(nanoseconds: 1_000))
    }
}
