/// The `state` part of the configuration, as the journal uses it.
struct JournalSettings: Sendable {
    var fsync: DaemonConfig.FsyncPolicy = .always
    var snapshotEvents = 100_000
    var snapshotBytes = 64 << 20
    var segmentBytes = 16 << 20
    var logWindowBytes = 8 << 20
    /// Snapshots kept on disk, the newest included (at least 2: a damaged newest one falls back on the one before).
    var keepSnapshots = 2
    /// How often `fsync: "batch"` syncs, in nanoseconds.
    static let batchInterval: UInt64 = 100_000_000

    init() {}

    init(_ config: DaemonConfig) {
        fsync = config.fsync
        snapshotEvents = config.snapshotEvents
        snapshotBytes = config.snapshotBytes
        segmentBytes = config.segmentBytes
        logWindowBytes = config.logWindowBytes
        keepSnapshots = config.keepSnapshots
    }
}
