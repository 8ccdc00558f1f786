import Dispatch
import MobiusCore

/// Where effect handlers deliver events for a `TestLoop`, from any thread; the test's thread takes them out.
///
/// It also observes effect activity (MobiusCore's `EffectActivityObserver`), so `exhaust` knows which effects are
/// still running even when they send nothing.
final class EventInbox<Event>: EffectActivityObserver, Sendable {
    private struct State {
        var events: [Event] = []
        var isClosed = false
        var lastArrival: ContinuousClock.Instant?
        var running: [Int: String] = [:]
        var nextToken = 0
    }

    private let state = Locked(State())
    /// Signalled once per posted event, so a waiting test thread wakes as soon as something arrives.
    private let arrival = DispatchSemaphore(value: 0)

    /// Adds an event. Dropped once the inbox is closed (the loop finished; late events race with that).
    func post(_ event: Event) {
        let accepted = state.withLock { state -> Bool in
            guard !state.isClosed else { return false }
            state.events.append(event)
            state.lastArrival = ContinuousClock.now
            return true
        }
        if accepted { arrival.signal() }
    }

    /// Removes and returns the oldest event, if any.
    func takeFirst() -> Event? {
        state.withLock { state in state.events.isEmpty ? nil : state.events.removeFirst() }
    }

    /// Whether no events are waiting.
    var isEmpty: Bool {
        state.withLock { $0.events.isEmpty }
    }

    /// When the most recent event arrived, or `nil` if none ever did.
    var lastArrival: ContinuousClock.Instant? {
        state.withLock { $0.lastArrival }
    }

    /// Blocks the calling thread until an event arrives or `duration` passes.
    func waitForArrival(upTo duration: Duration) {
        let (seconds, attoseconds) = duration.components
        let nanoseconds = max(0, seconds) * 1_000_000_000 + max(0, attoseconds) / 1_000_000_000
        _ = arrival.wait(timeout: .now() + .nanoseconds(Int(nanoseconds)))
    }

    /// Descriptions of the effects still running, oldest first.
    var runningEffects: [String] {
        state.withLock { state in state.running.sorted { $0.key < $1.key }.map(\.value) }
    }

    func effectBegan(_ effect: String) -> Int {
        state.withLock { state in
            state.nextToken += 1
            state.running[state.nextToken] = effect
            return state.nextToken
        }
    }

    func effectEnded(_ token: Int) {
        state.withLock { state in
            state.running[token] = nil
            state.lastArrival = ContinuousClock.now
        }
        arrival.signal()
    }

    /// Stops accepting events and drops those waiting.
    func close() {
        state.withLock { state in
            state.isClosed = true
            state.events.removeAll()
        }
    }
}
