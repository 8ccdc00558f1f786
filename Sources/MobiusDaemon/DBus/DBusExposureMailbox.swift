import MobiusJSON
import MobiusSystem
import Synchronization

/// What the reactor hands an exposure's bus thread: the newest committed state (latest-wins: a state the thread has
/// not taken yet is replaced, never queued behind) and the replies to `Send` calls, in order. One lock per hand-off,
/// and one eventfd write per burst: only the first hand-off into an empty mailbox wakes the thread.
final class DBusExposureMailbox: Sendable {
    /// A committed state: the last applied seq and the model after it.
    struct Committed: Sendable {
        var seq: UInt64
        var model: JSONValue
        /// Whether the model changed since the state the thread took before (any skipped state counts).
        var modelChanged: Bool
    }

    /// Everything handed over since the thread last looked.
    struct Contents: Sendable {
        var committed: Committed?
        /// Replies by the number of the `Send` call they answer, in the order the loop gave them.
        var replies: [(call: UInt32, reply: LoopReply)] = []
        /// SIGTERM arrived: new `Send` calls get `ShuttingDown`.
        var shuttingDown = false
        /// The daemon is stopping: answer what is left and close.
        var stop = false
    }

    private let contents = Mutex<(Contents, wakePending: Bool)>((Contents(), false))
    /// Readable when something was handed over; the bus thread waits on it beside its socket.
    let wake: EventFD

    init() throws(SystemError) {
        wake = try EventFD()
    }

    /// The reactor committed a new state (latest-wins).
    func post(_ committed: Committed) {
        hand { contents in
            var newest = committed
            if contents.committed?.modelChanged == true { newest.modelChanged = true }
            contents.committed = newest
        }
    }

    /// The loop answered `Send` call `number`.
    func post(_ reply: LoopReply, forCall number: UInt32) {
        hand { $0.replies.append((number, reply)) }
    }

    func beginShutdown() {
        hand { $0.shuttingDown = true }
    }

    func stop() {
        hand {
            $0.shuttingDown = true
            $0.stop = true
        }
    }

    private func hand(_ change: (inout Contents) -> Void) {
        let needsWake = contents.withLock { box -> Bool in
            change(&box.0)
            defer { box.wakePending = true }
            return !box.wakePending
        }
        if needsWake { wake.signal() }
    }

    /// The bus thread takes what was handed over (the flags stay set). Drain `wake` before calling this, so that a
    /// hand-off after it wakes the thread again.
    func take() -> Contents {
        contents.withLock { box in
            var taken = Contents(shuttingDown: box.0.shuttingDown, stop: box.0.stop)
            swap(&taken.committed, &box.0.committed)
            swap(&taken.replies, &box.0.replies)
            box.wakePending = false
            return taken
        }
    }
}
