import Dispatch

/// Delivers values on a queue, keeping at most one undelivered value: a slow receiver gets the newest one next.
final class LatestValue<Value>: @unchecked Sendable {
    // @unchecked: `pending` is behind a lock; `deliver` runs only on `queue`.
    let pending = Locked<Value?>(nil)
    let queue: DispatchQueue
    let deliver: (Value) -> Void

    init(queue: DispatchQueue, deliver: @escaping (Value) -> Void) {
        self.queue = queue
        self.deliver = deliver
    }

    func offer(_ value: Value) {
        let wasEmpty = pending.withLock { slot -> Bool in
            defer { slot = value }
            return slot == nil
        }
        guard wasEmpty else { return }
        let this = UncheckedSendable(value: self)
        queue.async {
            if let value = this.value.pending.withLock({ slot -> Value? in
                defer { slot = nil }
                return slot
            }) {
                this.value.deliver(value)
            }
        }
    }
}
