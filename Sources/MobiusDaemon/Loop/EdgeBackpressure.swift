/// The push-back of full plugin queues on the daemon's edges (docs/plugins.md, "Backpressure").
///
/// A plugin whose host-side queue reaches `maxQueued` holds the edges until it has drained below half of it. While
/// any plugin holds them, the loop takes no new events from control-socket clients, D-Bus sources or timers; what
/// they sent waits where it is (the socket buffer, the bus thread's inbox, the timer's event). Plugin results and
/// plugin events keep flowing, so the work the queues wait for still moves and nothing deadlocks. Nothing
/// accepted is dropped. Reactor thread only.
final class EdgeBackpressure {
    private var holders: Set<ObjectIdentifier> = []
    private var whenReleased: [() -> Void] = []

    /// Whether some plugin holds the edges now.
    var isHolding: Bool { !holders.isEmpty }

    /// How many plugins hold the edges now (for `status`).
    var holderCount: Int { holders.count }

    /// `holder` has a full queue.
    // The holders and waiters change while moved out of the object, so that the loop's check of `isHolding` on
    // every round is proven exclusive at compile time (docs/architecture.md, "Exclusivity").

    func hold(for holder: AnyObject) {
        var moved: Set<ObjectIdentifier> = []
        swap(&moved, &holders)
        moved.insert(ObjectIdentifier(holder))
        swap(&moved, &holders)
    }

    /// `holder` has drained (or gone); when no holder is left, everyone waiting is told, in the order they asked.
    func release(for holder: AnyObject) {
        var moved: Set<ObjectIdentifier> = []
        swap(&moved, &holders)
        let removed = moved.remove(ObjectIdentifier(holder)) != nil
        swap(&moved, &holders)
        guard removed, holders.isEmpty else { return }
        var waiting: [() -> Void] = []
        swap(&waiting, &whenReleased)
        for resume in waiting { resume() }
    }

    /// Calls `resume` once, when no plugin holds the edges any more (at once when none does).
    func notifyWhenReleased(_ resume: @escaping () -> Void) {
        guard isHolding else {
            resume()
            return
        }
        var waiting: [() -> Void] = []
        swap(&waiting, &whenReleased)
        waiting.append(resume)
        swap(&waiting, &whenReleased)
    }
}

/// The loop's side of `EdgeBackpressure`: it has not asked to be told of the release (nothing of the edges
/// waits), it waits for the release, or the release has come and the next round lets the edges in.
enum EdgeRelease {
    case notAsked
    case awaited
    case arrived
}
