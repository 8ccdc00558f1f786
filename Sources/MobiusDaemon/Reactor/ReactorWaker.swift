import MobiusSystem
import Synchronization

/// How other threads reach the reactor thread: they post work, and the reactor runs it in its next round.
///
/// One eventfd write per batch: a post only signals when the queue was empty, so a burst of posts costs one
/// wake-up.
final class ReactorWaker: Sendable {
    let eventFD: EventFD
    private let posted = Mutex<[@Sendable () -> Void]>([])

    init() throws(SystemError) {
        eventFD = try EventFD()
    }

    /// Runs `work` on the reactor thread soon. Callable from any thread; never blocks on the reactor.
    func post(_ work: @escaping @Sendable () -> Void) {
        let wasEmpty = posted.withLock { queue in
            queue.append(work)
            return queue.count == 1
        }
        if wasEmpty { eventFD.signal() }
    }

    /// The reactor thread: everything posted so far, oldest first.
    func takePosted() -> [@Sendable () -> Void] {
        eventFD.drain()
        return posted.withLock { queue in
            defer { queue.removeAll(keepingCapacity: true) }
            return queue
        }
    }
}
