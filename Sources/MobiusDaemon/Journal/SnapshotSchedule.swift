/// When the journal takes its next snapshot: after `snapshotEvents` events or `snapshotBytes` bytes of records since
/// the last one, and never while one is being written.
struct SnapshotSchedule {
    private(set) var eventsSince = 0
    private(set) var bytesSince = 0
    /// A snapshot is being written on the journal thread.
    private(set) var isRunning = false

    init(eventsSince: Int = 0) {
        self.eventsSince = eventsSince
    }

    /// Counts a committed pass.
    mutating func committed(events: Int, bytes: Int) {
        eventsSince += events
        bytesSince += bytes
    }

    /// Whether a snapshot is due now.
    func isDue(_ settings: JournalSettings) -> Bool {
        !isRunning && (eventsSince >= settings.snapshotEvents || bytesSince >= settings.snapshotBytes)
    }

    /// A snapshot starts: the counts begin again.
    mutating func started() {
        isRunning = true
        eventsSince = 0
        bytesSince = 0
    }

    /// The snapshot being written has finished (written or not).
    mutating func finished() {
        isRunning = false
    }
}
