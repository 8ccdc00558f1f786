import Dispatch
import Synchronization

/// The bounded queue between the threads that send events to a `MobiusController` and its loop queue.
///
/// Senders append; the first append after the mailbox went idle schedules one drain on the loop queue, which hands
/// batches to the loop until the mailbox is empty. A sender that finds `capacity` events waiting blocks until the
/// loop takes them (backpressure), except on the loop queue itself, where blocking would deadlock (an effect that
/// sends events synchronously is bounded by the work of the event that caused it).
@usableFromInline final class EventMailbox<Event>: @unchecked Sendable {
    // Kept @inlinable on post and drain: MobiusBench "controller" row (every event passes both).
    // @unchecked: mutable state is inside `state` (Locked); `deliver` is only called from the loop queue.
    @usableFromInline struct State {
        @usableFromInline var pending: [Event] = []
        @usableFromInline var scheduled = false
        @usableFromInline var waitingSenders = 0
        @usableFromInline var closed = false

        @inlinable init() {}
    }

    @usableFromInline enum PostOutcome { case queued(schedule: Bool), full, dropped }

    @usableFromInline let state = Locked(State())
    @usableFromInline let spaceAvailable = DispatchSemaphore(value: 0)
    @usableFromInline let capacity: Int
    @usableFromInline let loopQueue: DispatchQueue
    @usableFromInline let onLoopQueue: () -> Bool
    @usableFromInline let deliver: (Event) -> Void

    @inlinable init(
        capacity: Int, loopQueue: DispatchQueue, onLoopQueue: @escaping () -> Bool, deliver: @escaping (Event) -> Void
    ) {
        self.capacity = max(1, capacity)
        self.loopQueue = loopQueue
        self.onLoopQueue = onLoopQueue
        self.deliver = deliver
    }

    /// Queues `event`, blocking while the mailbox is full (unless called on the loop queue). Dropped once closed.
    @inlinable func post(_ event: Event) {
        while true {
            let outcome = state.withLock { state -> PostOutcome in
                if state.closed { return .dropped }
                if state.pending.count >= capacity && !onLoopQueue() {
                    state.waitingSenders += 1
                    return .full
                }
                state.pending.append(event)
                if state.scheduled { return .queued(schedule: false) }
                state.scheduled = true
                return .queued(schedule: true)
            }
            switch outcome {
            case .dropped, .queued(schedule: false):
                return
            case .queued(schedule: true):
                let mailbox = UncheckedSendable(value: self)
                loopQueue.async { mailbox.value.drain() }
                return
            case .full:
                spaceAvailable.wait()
            }
        }
    }

    /// Drops queued events and releases blocked senders; later posts are dropped.
    func close() {
        let waiting = state.withLock { state -> Int in
            state.closed = true
            state.pending.removeAll()
            defer { state.waitingSenders = 0 }
            return state.waitingSenders
        }
        for _ in 0..<waiting { spaceAvailable.signal() }
    }

    /// Hands one batch to the loop, then yields the queue (rescheduling itself if more arrived), so that a
    /// `stop()` waiting to run on the loop queue is not starved by a producer that never pauses.
    @inlinable func drain() {
        let taken = state.withLock { state -> (batch: [Event], waiting: Int)? in
            if state.pending.isEmpty || state.closed {
                state.scheduled = false
                return nil
            }
            defer {
                state.pending = []
                state.waitingSenders = 0
            }
            return (state.pending, state.waitingSenders)
        }
        guard let (batch, waiting) = taken else { return }
        for _ in 0..<waiting { spaceAvailable.signal() }
        for event in batch {
            deliver(event)
        }
        let mailbox = UncheckedSendable(value: self)
        loopQueue.async { mailbox.value.drain() }
    }
}
