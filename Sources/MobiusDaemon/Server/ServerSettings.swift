/// The control socket's limits and access rules (config `socket` and `access`).
struct ServerSettings: Sendable {
    var maxLineBytes = 1 << 20
    var maxOutputBytes = 8 << 20
    var maxConnections = 1024
    var maxConnectionsPerUser = 256
    /// Seconds a connection with unwritten output may go without write progress.
    var stallTimeout: Double = 30
    var access: AccessPolicy
    /// How long shutdown waits for clients to take their last replies.
    var shutdownFlushSeconds: Double = 5

    /// `stallTimeout` in nanoseconds (the config bounds it, so this cannot overflow).
    var stallTimeoutNanoseconds: UInt64 { UInt64(stallTimeout * 1e9) }
}
