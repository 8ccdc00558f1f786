import MobiusSystem

/// A bounded queue into the loop for one producer on another thread (a Swift effect handler's task, a D-Bus
/// reader thread). Each producer has its own inbox, so a full one holds back only its own producer.
///
/// The producer's policy decides what a full inbox means:
/// - `block`: `post` waits until the loop has taken items (for producers with a thread of their own to spare);
/// - `dropNewest`: `post` returns `false` and the item is counted in `dropped` (for producers that must keep
///   reading, such as a bus connection that would otherwise be disconnected for not draining).
/// The first item into an empty inbox wakes the reactor once; the loop takes items as its queue has room.
final class EventInbox<Item>: @unchecked Sendable {
    // @unchecked: `items`, `closed`, `dropped` and `wakePending` are touched only while holding `condition`'s
    // mutex; items move from the producer's thread to the reactor thread, which then owns them.

    /// What `post` does when the inbox is full.
    enum Policy: Sendable {
        case block
        case dropNewest
    }

    let kind: EventSourceKind
    let capacity: Int
    let policy: Policy
    private let condition = ThreadCondition()
    private var items: [Item] = []
    private var closed = false
    private var dropped: UInt64 = 0
    private var wakePending = false
    private let wake: @Sendable () -> Void

    /// - Parameter wake: asks the reactor to take items (posted through its waker); called once per empty →
    ///   non-empty transition.
    init(kind: EventSourceKind, capacity: Int, policy: Policy, wake: @escaping @Sendable () -> Void) {
        self.kind = kind
        self.capacity = max(1, capacity)
        self.policy = policy
        self.wake = wake
    }

    /// Adds an item from the producer's thread. Returns `false` when it was dropped (full with `dropNewest`, or the
    /// inbox is closed).
    @discardableResult
    func post(_ item: Item) -> Bool {
        let (accepted, needsWake) = condition.withLock { () -> (Bool, Bool) in
            while !closed && items.count >= capacity {
                guard policy == .block else {
                    dropped += 1
                    return (false, false)
                }
                condition.wait()
            }
            guard !closed else { return (false, false) }
            items.append(item)
            defer { wakePending = true }
            return (true, !wakePending)
        }
        if needsWake { wake() }
        return accepted
    }

    /// The reactor thread: takes up to `limit` items, oldest first, and lets blocked producers go on.
    func take(upTo limit: Int) -> [Item] {
        let taken = condition.withLock { () -> [Item] in
            let count = min(limit, items.count)
            let taken = Array(items.prefix(count))
            items.removeFirst(count)
            // A later post must wake the reactor again unless items are left (then the loop comes back for them).
            wakePending = !items.isEmpty
            return taken
        }
        if !taken.isEmpty { condition.broadcast() }
        return taken
    }

    /// Items waiting now.
    var depth: Int { condition.withLock { items.count } }

    /// Items refused because the inbox was full (`dropNewest`).
    var droppedCount: UInt64 { condition.withLock { dropped } }

    /// Releases blocked producers for good; later posts are refused.
    func close() {
        condition.withLock { closed = true }
        condition.broadcast()
    }
}
