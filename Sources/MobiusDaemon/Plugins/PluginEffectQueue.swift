import MobiusJSON

/// How many effects a plugin has in flight, and the effects waiting in the host for a free slot or for the plugin
/// to run again, oldest first; with the push-back of `maxQueued` (docs/plugins.md, "Backpressure"). A value the
/// runner asks and tells, tested without a process.
struct PluginEffectQueue {
    private let concurrency: Int
    private let maxQueued: Int
    private var waiting: [(effect: JSONValue, key: String)] = []
    private var head = 0
    /// Effects sent and not yet answered, failed or timed out.
    private(set) var inFlight = 0
    /// Whether the queue has reached `maxQueued` and not yet drained to half of it: the daemon's edges wait.
    private(set) var pushingBack = false

    init(concurrency: Int, maxQueued: Int) {
        self.concurrency = concurrency
        self.maxQueued = maxQueued
    }

    /// Effects waiting.
    var count: Int { waiting.count - head }

    /// What became of a submitted effect.
    enum Submitted: Equatable {
        /// Send it now (a slot is free and nothing waits before it).
        case send
        /// It waits.
        case queued
        /// It waits, and the queue has just reached `maxQueued`: the edges are to be held.
        case queuedPushingBack
    }

    /// An effect for key `key`; `running`: whether the plugin takes effects now.
    mutating func submit(_ effect: JSONValue, key: String, running: Bool) -> Submitted {
        if running, inFlight < concurrency, head == waiting.count { return .send }
        waiting.append((effect, key))
        guard !pushingBack, count >= maxQueued else { return .queued }
        pushingBack = true
        return .queuedPushingBack
    }

    /// The next waiting effect, while fewer than `concurrency` are in flight; `nil` when none may go.
    mutating func next() -> JSONValue? {
        guard inFlight < concurrency, head < waiting.count else {
            compact()
            return nil
        }
        let effect = waiting[head].effect
        head += 1
        return effect
    }

    /// Drops what was taken from the front: all of it once none waits, or the taken part once it is most of it.
    private mutating func compact() {
        if head == waiting.count {
            waiting.removeAll(keepingCapacity: waiting.capacity <= 4096)
            head = 0
        } else if head > 1024 && head * 2 > waiting.count {
            waiting.removeFirst(head)
            head = 0
        }
    }

    /// An effect went out.
    mutating func sent() { inFlight += 1 }
    /// An effect in flight was answered or timed out.
    mutating func finished() { inFlight -= 1 }
    /// Every effect in flight failed at once (the process ended).
    mutating func finishedAll() { inFlight = 0 }

    /// Ends push-back once the queue has drained to half of `maxQueued` (hysteresis: the edges are not held and let
    /// go for every effect); true when it ended just now.
    mutating func stopPushingBackIfDrained() -> Bool {
        guard pushingBack, count <= maxQueued / 2 else { return false }
        pushingBack = false
        return true
    }

    /// Takes every waiting effect out, oldest first.
    mutating func removeAll() -> [JSONValue] {
        let effects = waiting[head...].map(\.effect)
        waiting = []
        head = 0
        return effects
    }

    /// Keeps the waiting effects whose key is in `keys`; returns the others, oldest first.
    mutating func keepOnly(keys: Set<String>) -> [(effect: JSONValue, key: String)] {
        guard head < waiting.count else { return [] }
        var kept: [(effect: JSONValue, key: String)] = []
        var dropped: [(effect: JSONValue, key: String)] = []
        for item in waiting[head...] {
            if keys.contains(item.key) { kept.append(item) } else { dropped.append(item) }
        }
        waiting = kept
        head = 0
        return dropped
    }
}
