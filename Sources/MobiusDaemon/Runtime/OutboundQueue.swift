import MobiusCore
import MobiusSystem
import Synchronization

/// Messages from the loop thread to the I/O thread, with an eventfd to wake the I/O thread's epoll.
///
/// The loop appends a whole pass's output and wakes the I/O thread once; the I/O thread takes everything at once.
final class OutboundQueue: Sendable {
    private let messages = Locked<[LoopOutput]>([])
    let wakeup: EventFD

    init() throws(SystemError) {
        wakeup = try EventFD()
    }

    /// Mirrors "messages are waiting", so the I/O thread can watch for them without the lock.
    private let pending = Atomic<Bool>(false)

    /// Appends messages and wakes the I/O thread.
    func send(_ batch: [LoopOutput]) {
        guard !batch.isEmpty else { return }
        messages.withLock { $0.append(contentsOf: batch) }
        pending.store(true, ordering: .releasing)
        wakeup.signal()
    }

    /// Appends one message and wakes the I/O thread.
    func send(_ message: LoopOutput) {
        messages.withLock { $0.append(message) }
        pending.store(true, ordering: .releasing)
        wakeup.signal()
    }

    /// Waits up to `nanoseconds` for a message, without sleeping; returns whether one is waiting.
    func watch(nanoseconds: UInt64) -> Bool {
        let deadline = SystemProcess.monotonicNanoseconds() + nanoseconds
        while !pending.load(ordering: .acquiring) {
            if SystemProcess.monotonicNanoseconds() >= deadline { return false }
        }
        return true
    }

    /// The I/O thread: everything sent so far, oldest first.
    func takeAll() -> [LoopOutput] {
        wakeup.drain()
        pending.store(false, ordering: .releasing)
        return messages.withLock { pending in
            defer { pending.removeAll(keepingCapacity: true) }
            return pending
        }
    }
}
