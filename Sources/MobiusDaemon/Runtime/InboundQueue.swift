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

    init(capacity: Int) {
        self.capacity = max(1, capacity)
    }

    /// Adds `item` unless the queue is full. On `false` the caller must retry after `.inboundSpace`.
    func offer(_ item: Item) -> Bool {
        let wake = condition.withLock { () -> Bool? in
            guard items.count < capacity else {
                producerPaused = true
                return nil
            }
            items.append(item)
            defer { loopWaiting = false }
            return loopWaiting
        }
        if wake == true { condition.broadcast() }
        return wake != nil
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
            loopWaiting = false
        }
        condition.broadcast()
    }

    /// The loop thread: waits until items are queued, then takes them all. Returns whether a producer was paused
    /// by a full queue (and should now be told there is room).
    func takeAll(into batch: inout [Item]) -> Bool {
        var paused = false
        condition.withLock {
            while items.isEmpty {
                loopWaiting = true
                condition.wait()
            }
            swap(&items, &batch)
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
