import MobiusJSON
import Testing

@testable import MobiusDaemon

/// The effects a plugin has in flight and waiting, without a process: the `concurrency` limit, push-back at
/// `maxQueued` and its release at half of it.
@Suite struct PluginEffectQueueTests {
    private func effect(_ number: Int) -> JSONValue {
        .object(["type": "work", "n": .number(JSONNumber(number))])
    }

    /// Takes what may go now, counting it as sent.
    private func drain(_ queue: inout PluginEffectQueue) -> [JSONValue] {
        var sent: [JSONValue] = []
        while let next = queue.next() {
            queue.sent()
            sent.append(next)
        }
        return sent
    }

    @Test func aRunningPluginGetsEffectsUpToConcurrency() {
        var queue = PluginEffectQueue(concurrency: 2, maxQueued: 10)
        let submitted = queue.submit(effect(1), key: "work", running: true)
        #expect(submitted == .send)
        queue.sent()
        let submitted2 = queue.submit(effect(2), key: "work", running: true)
        #expect(submitted2 == .send)
        queue.sent()
        let submitted3 = queue.submit(effect(3), key: "work", running: true)
        #expect(submitted3 == .queued)
        let submitted4 = queue.submit(effect(4), key: "work", running: true)
        #expect(submitted4 == .queued)
        #expect(queue.inFlight == 2)
        #expect(queue.count == 2)
        #expect(drain(&queue).isEmpty)
        queue.finished()
        #expect(drain(&queue) == [effect(3)])
        // An effect submitted while others wait goes behind them, even with a slot free.
        queue.finished()
        let submitted5 = queue.submit(effect(5), key: "work", running: true)
        #expect(submitted5 == .queued)
        #expect(drain(&queue) == [effect(4)])
        #expect(queue.inFlight == 2)
        queue.finishedAll()
        #expect(drain(&queue) == [effect(5)])
    }

    @Test func effectsWaitWhileThePluginIsNotRunning() {
        var queue = PluginEffectQueue(concurrency: 4, maxQueued: 10)
        let submitted = queue.submit(effect(1), key: "work", running: false)
        #expect(submitted == .queued)
        #expect(queue.inFlight == 0)
        #expect(queue.count == 1)
    }

    @Test func aFullQueuePushesBackUntilItDrainsToHalf() {
        var queue = PluginEffectQueue(concurrency: 1, maxQueued: 4)
        let submitted = queue.submit(effect(0), key: "work", running: true)
        #expect(submitted == .send)
        queue.sent()
        let outcomes = (1...5).map { queue.submit(effect($0), key: "work", running: true) }
        #expect(outcomes == [.queued, .queued, .queued, .queuedPushingBack, .queued])
        #expect(queue.pushingBack)
        var released: [Int] = []
        for round in 1...5 {
            queue.finished()
            #expect(drain(&queue).count == 1)
            if queue.stopPushingBackIfDrained() { released.append(round) }
        }
        // 5 waiting: released once 2 (half of 4) are left, after the third answer; and only once.
        #expect(released == [3])
        #expect(!queue.pushingBack)
    }

    @Test func failingWhatWaitsEmptiesTheQueue() {
        var queue = PluginEffectQueue(concurrency: 1, maxQueued: 2)
        _ = queue.submit(effect(1), key: "a", running: false)
        _ = queue.submit(effect(2), key: "b", running: false)
        #expect(queue.pushingBack)
        let failed = queue.removeAll()
        #expect(failed == [effect(1), effect(2)])
        #expect(queue.count == 0)
        let released = queue.stopPushingBackIfDrained()
        #expect(released)
    }

    @Test func keysARestartedPluginNoLongerClaimsAreTakenOut() {
        var queue = PluginEffectQueue(concurrency: 4, maxQueued: 10)
        for (number, key) in [(1, "a"), (2, "b"), (3, "a"), (4, "c")] {
            _ = queue.submit(effect(number), key: key, running: false)
        }
        let dropped = queue.keepOnly(keys: ["a"])
        #expect(dropped.map(\.key) == ["b", "c"])
        #expect(dropped.map(\.effect) == [effect(2), effect(4)])
        #expect(drain(&queue) == [effect(1), effect(3)])
    }
}
