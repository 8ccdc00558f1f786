import MobiusSystem
import Synchronization

/// The bounded queue into the loop thread.
///
/// The I/O thread offers items without ever blocking (`offer` fails when full and the I/O thread pauses reading:
/// backpressure). Effect handlers on other threads block while it is full; the loop thread itself (synchronous
/// effect handlers) may exceed the bound, since blocking there would deadlock and its additions are bounded by
/// the work of one pass.
final class InboundQueue<Item>: @unchecked Sendable {
    // @unchecked: `items` and the flags are only touched while holding `condition`'s mutex; items move from the
    // producing thread to the loop thread, which then owns them.
    private let condition = ThreadCondition()
    private var items: [Item] = []
    private var loopWaiting = false
    private var producerPaused = false
    private var stopped = false
    let capacity: Int
    /// Mirrors `!items.isEmpty` for the lock-free check before sleeping.
    private let hasItems = Atomic<Bool>(false)
    /// How long the loop thread watches for new input before it sleeps.
    static var spinNanoseconds: UInt64 { 100_000 }

    init(capacity: Int) {
        self.capacity = max(1, capacity)
    }

    /// The I/O thread: appends a batch (emptying it) and returns how many more items fit. The batch is taken
    /// whole: the I/O thread stages at most what the previous call said fits, so the bound is exceeded only by
    /// additions from effect handlers made in between. When the result is 0 the caller stops reading and waits for
    /// `.inboundSpace`.
    func offer(_ batch: inout [Item]) -> Int {
        let (room, wake) = condition.withLock { () -> (Int, Bool) in
            let room = max(0, capacity - items.count - batch.count)
            if room == 0 { producerPaused = true }
            guard !batch.isEmpty else { return (room, false) }
            if items.isEmpty {
                swap(&items, &batch)  // the usual case: no copy, no retain per item
            } else {
                items.append(contentsOf: batch)
            }
            hasItems.store(true, ordering: .releasing)
            defer { loopWaiting = false }
            return (room, loopWaiting)
        }
        batch.removeAll(keepingCapacity: true)
        if wake { condition.broadcast() }
        return room
    }

    /// Adds `item`, waiting while the queue is full unless `overCapacity` (the loop thread's own additions).
    /// Dropped after `close()`.
    func push(_ item: Item, overCapacity: Bool) {
        condition.withLock {
            while !overCapacity && !stopped && items.count >= capacity {
                producerPaused = true
                condition.wait()
            }
            guard !stopped else { return }
            items.append(item)
            hasItems.store(true, ordering: .releasing)
            loopWaiting = false
        }
        condition.broadcast()
    }

    /// The loop thread: waits until items are queued, then takes them all. Returns whether a producer was paused
    /// by a full queue (and should now be told there is room).
    ///
    /// - Parameter watch: whether to watch for new input for a moment before sleeping (see `spinNanoseconds`).
    func takeAll(into batch: inout [Item], watch: Bool = true) -> Bool {
        // A request usually follows its predecessor's reply within microseconds (one-at-a-time clients):
        // watching for it briefly is cheaper than a futex sleep and wake-up on both sides.
        if watch && !hasItems.load(ordering: .acquiring) {
            let deadline = SystemProcess.monotonicNanoseconds() + Self.spinNanoseconds
            while !hasItems.load(ordering: .acquiring) && SystemProcess.monotonicNanoseconds() < deadline {}
        }
        var paused = false
        condition.withLock {
            while items.isEmpty {
                loopWaiting = true
                condition.wait()
            }
            swap(&items, &batch)
            hasItems.store(false, ordering: .releasing)
            paused = producerPaused
            producerPaused = false
        }
        if paused { condition.broadcast() }
        return paused
    }

    /// Items waiting now.
    var depth: Int {
        condition.withLock { items.count }
    }

    /// Releases blocked producers for good; later pushes are dropped.
    func close() {
        condition.withLock { stopped = true }
        condition.broadcast()
    }
}
