import MobiusCore

/// Messages from the loop thread to the I/O thread, with an eventfd to wake the I/O thread's epoll.
///
/// The loop appends a whole pass's output and wakes the I/O thread once; the I/O thread takes everything at once.
final class OutboundQueue: Sendable {
    private let messages = Locked<[LoopOutput]>([])
    let wakeup: EventFD

    init() throws(SystemError) {
        wakeup = try EventFD()
    }

    /// Appends messages and wakes the I/O thread.
    func send(_ batch: [LoopOutput]) {
        guard !batch.isEmpty else { return }
        messages.withLock { $0.append(contentsOf: batch) }
        wakeup.signal()
    }

    /// Appends one message and wakes the I/O thread.
    func send(_ message: LoopOutput) {
        messages.withLock { $0.append(message) }
        wakeup.signal()
    }

    /// The I/O thread: everything sent so far, oldest first.
    func takeAll() -> [LoopOutput] {
        wakeup.drain()
        return messages.withLock { pending in
            defer { pending.removeAll(keepingCapacity: true) }
            return pending
        }
    }
}
