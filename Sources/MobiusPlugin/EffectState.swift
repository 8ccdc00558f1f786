import Synchronization

/// Where one effect is in its life, shared by its handler's ``EffectRequest`` and the session.
final class EffectState: Sendable {
    private static let running = 0
    private static let cancelled = 1
    private static let ended = 2

    private let value = Atomic<Int>(EffectState.running)

    /// Whether the effect still runs: not cancelled, not ended.
    var isRunning: Bool { value.load(ordering: .acquiring) == EffectState.running }

    /// Whether the host cancelled it.
    var isCancelled: Bool { value.load(ordering: .acquiring) == EffectState.cancelled }

    /// Marks it cancelled; `false` when it had already ended or been cancelled.
    func cancel() -> Bool {
        value.compareExchange(
            expected: EffectState.running, desired: EffectState.cancelled, ordering: .acquiringAndReleasing
        )
        .exchanged
    }

    /// Marks it ended; `false` when it was cancelled first (then nothing more is sent for it).
    func end() -> Bool {
        value.compareExchange(
            expected: EffectState.running, desired: EffectState.ended, ordering: .acquiringAndReleasing
        )
        .exchanged
    }
}
