/// Credentials of the process at the other end of a Unix socket (SO_PEERCRED).
package struct PeerCredentials: Sendable, Equatable {
    /// Process id.
    package let pid: Int32
    /// User id.
    package let uid: UInt32
    /// Primary group id.
    package let gid: UInt32
}
