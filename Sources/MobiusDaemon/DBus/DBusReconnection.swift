/// The rhythm of a bus thread's attempts to be connected (docs/dbus.md, "Bus loss and unreachable buses"): 0.25 s
/// between attempts, doubling to 30 s, back to 0.25 s after a connection; whether an attempt is a retry; and the one
/// notice that the first attempt has settled, either way (`READY=1` waits for it).
struct DBusReconnection {
    static let initialDelay = 0.25
    static let maxDelay = 30.0
    /// Seconds to wait before the next attempt.
    private(set) var delay = initialDelay
    private var attempts = 0
    private var firstSettled: (@Sendable () -> Void)?

    init(whenFirstSettled: @escaping @Sendable () -> Void) {
        firstSettled = whenFirstSettled
    }

    /// Starts an attempt; `true` when an earlier one was made.
    mutating func attempt() -> Bool {
        attempts += 1
        return attempts > 1
    }

    /// The attempt connected: the next wait is the shortest again.
    mutating func connected() {
        delay = Self.initialDelay
    }

    /// An attempt has finished, either way: the first one tells `whenFirstSettled`.
    mutating func settle() {
        firstSettled?()
        firstSettled = nil
    }

    /// The wait is over: the next one is twice as long, up to `maxDelay`.
    mutating func waited() {
        delay = min(delay * 2, Self.maxDelay)
    }
}
