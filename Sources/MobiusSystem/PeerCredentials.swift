/// Credentials of the process at the other end of a Unix socket, as they were when it connected: `SO_PEERCRED` (pid,
/// effective uid and gid) and `SO_PEERGROUPS` (its supplementary groups).
package struct PeerCredentials: Sendable, Equatable {
    /// Process id.
    package let pid: Int32
    /// User id.
    package let uid: UInt32
    /// Primary group id.
    package let gid: UInt32
    /// Supplementary groups (empty on a kernel without `SO_PEERGROUPS`).
    package let groups: [UInt32]

    package init(pid: Int32, uid: UInt32, gid: UInt32, groups: [UInt32]) {
        self.pid = pid
        self.uid = uid
        self.gid = gid
        self.groups = groups
    }
}
