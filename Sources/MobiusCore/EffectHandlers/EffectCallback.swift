import Synchronization

/// Handed to an `EffectHandler` for one effect: send events with it, then end it.
///
/// Thread-safe. Events sent after `end()` are dropped; `end()` after the first does nothing.
public final class EffectCallback<Event>: @unchecked Sendable {
    // @unchecked: `onSend` and `onEnd` are loop-provided consumers that are themselves thread-safe; the ended flag is
    // atomic, so `onEnd` runs once.
    let onSend: (Event) -> Void
    let onEnd: () -> Void
    let ended = Atomic<Bool>(false)

    /// Creates a callback; `onSend` receives events, `onEnd` runs once when the effect ends.
    public init(onSend: @escaping (Event) -> Void, onEnd: @escaping () -> Void) {
        self.onSend = onSend
        self.onEnd = onEnd
    }

    /// Whether the effect has ended.
    public var isEnded: Bool {
        ended.load(ordering: .acquiring)
    }

    /// Sends an event to the loop. Dropped if the effect has ended.
    public func send(_ event: Event) {
        guard !isEnded else { return }
        onSend(event)
    }

    /// Ends the effect.
    public func end() {
        guard ended.compareExchange(expected: false, desired: true, ordering: .acquiringAndReleasing).exchanged
        else { return }
        onEnd()
    }

    /// Sends `events` in order, then ends the effect.
    public func end(with events: Event...) {
        end(with: events)
    }

    /// Sends `events` in order, then ends the effect.
    public func end(with events: [Event]) {
        for event in events {
            send(event)
        }
        end()
    }
}
