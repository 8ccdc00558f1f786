/// The reactor's one-shot timers: a binary min-heap of deadlines. Cancellation is lazy: a cancelled timer stays in
/// the heap until its deadline comes up and is then skipped.
struct ReactorTimers {
    /// Names a scheduled timer, for `cancel`.
    struct ID: Hashable {
        fileprivate let value: UInt64
    }

    private struct Entry {
        let deadline: UInt64
        let id: UInt64
    }

    private var heap: [Entry] = []
    private var actions: [UInt64: () -> Void] = [:]
    private var nextID: UInt64 = 1

    /// Whether any timer is still scheduled.
    var isEmpty: Bool { actions.isEmpty }

    /// Schedules `action` at the monotonic time `deadline` (nanoseconds).
    mutating func schedule(at deadline: UInt64, _ action: @escaping () -> Void) -> ID {
        let id = nextID
        nextID += 1
        actions[id] = action
        heap.append(Entry(deadline: deadline, id: id))
        siftUp(heap.count - 1)
        return ID(value: id)
    }

    /// Cancels a timer; cancelling one that already fired or was cancelled does nothing. Returns the cancelled
    /// action, for the caller to release once the timers are back in place (its captures' deinits may schedule).
    @discardableResult
    mutating func cancel(_ id: ID) -> (() -> Void)? {
        let cancelled = actions.removeValue(forKey: id.value)
        // Drop cancelled entries at the top so the next deadline is a live one.
        while let top = heap.first, actions[top.id] == nil { popTop() }
        return cancelled
    }

    /// The earliest live deadline, if any.
    var nextDeadline: UInt64? { heap.first?.deadline }

    /// Removes and returns the earliest action due at `now`, if any. The reactor takes them one at a time, so a timer
    /// that cancels another due in the same round stops it.
    mutating func popDue(now: UInt64) -> (() -> Void)? {
        while let top = heap.first, top.deadline <= now {
            popTop()
            if let action = actions.removeValue(forKey: top.id) { return action }
        }
        return nil
    }

    private mutating func popTop() {
        let last = heap.removeLast()
        guard !heap.isEmpty else { return }
        heap[0] = last
        siftDown(0)
    }

    private mutating func siftUp(_ start: Int) {
        var child = start
        while child > 0 {
            let parent = (child - 1) / 2
            guard heap[child].deadline < heap[parent].deadline else { return }
            heap.swapAt(child, parent)
            child = parent
        }
    }

    private mutating func siftDown(_ start: Int) {
        var parent = start
        while true {
            let left = 2 * parent + 1
            guard left < heap.count else { return }
            let right = left + 1
            let smaller = right < heap.count && heap[right].deadline < heap[left].deadline ? right : left
            guard heap[smaller].deadline < heap[parent].deadline else { return }
            heap.swapAt(smaller, parent)
            parent = smaller
        }
    }
}
