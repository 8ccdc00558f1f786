import Synchronization

/// Named holds on the daemon's readiness: `READY=1` goes to systemd only when every part that must be finished first
/// has released its hold (docs/protocol.md 4: state recovered, the socket listening, plugins initialized, reachable D-Bus
/// buses' matches in).
///
/// How a part takes part: while the runtime is being built (before `open()`), it calls `hold("plugin sound")` and
/// keeps the `ReadinessHold`; when it is done, or has given up (a plugin that failed its start, a bus that is not
/// reachable), it calls `release()` on it, from any thread. The runtime calls `open()` once everything is wired and
/// the reactor is about to run; the gate is ready when it is open and no hold is left, and then runs the actions
/// given to `whenReady` once. A hold taken after the gate is ready holds nothing (a plugin restarted later does not
/// make the daemon "not ready" again).
final class ReadinessGate: Sendable {
    private struct State {
        var pending: [UInt64: String] = [:]
        var nextID: UInt64 = 0
        var opened = false
        var ready = false
        var actions: [@Sendable () -> Void] = []
    }

    private let state = Mutex(State())

    /// A gate that is not open yet and holds nothing.
    init() {}

    /// Takes a hold named `name` (shown in the log while the daemon waits for it).
    func hold(_ name: String) -> ReadinessHold {
        let id = state.withLock { state -> UInt64? in
            guard !state.ready else { return nil }
            state.nextID += 1
            state.pending[state.nextID] = name
            return state.nextID
        }
        guard let id else { return ReadinessHold(gate: nil, id: 0) }
        return ReadinessHold(gate: self, id: id)
    }

    /// Start-up has taken every hold it will: from now on the last release makes the gate ready.
    func open() {
        let actions = state.withLock { state -> [@Sendable () -> Void] in
            state.opened = true
            return Self.becomeReadyIfDone(&state)
        }
        for action in actions { action() }
    }

    /// Runs `action` once the gate is ready: at once (on this thread) if it already is, else on the thread that
    /// releases the last hold or opens the gate.
    func whenReady(_ action: @escaping @Sendable () -> Void) {
        let runNow = state.withLock { state -> Bool in
            if state.ready { return true }
            state.actions.append(action)
            return false
        }
        if runNow { action() }
    }

    /// Whether the gate is open and every hold has been released.
    var isReady: Bool { state.withLock { $0.ready } }

    /// The names of the holds not released yet, in the order taken.
    var pendingNames: [String] {
        state.withLock { state in state.pending.sorted { $0.key < $1.key }.map(\.value) }
    }

    /// Releases hold `id`; releasing one twice does nothing.
    func release(_ id: UInt64) {
        let actions = state.withLock { state -> [@Sendable () -> Void] in
            guard state.pending.removeValue(forKey: id) != nil else { return [] }
            return Self.becomeReadyIfDone(&state)
        }
        for action in actions { action() }
    }

    private static func becomeReadyIfDone(_ state: inout State) -> [@Sendable () -> Void] {
        guard state.opened, !state.ready, state.pending.isEmpty else { return [] }
        state.ready = true
        defer { state.actions.removeAll() }
        return state.actions
    }
}
