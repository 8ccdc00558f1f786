import MobiusSystem

/// Who may read and who may write, from config `access.read` / `access.write` (docs/protocol.md 1.6).
struct AccessPolicy: Sendable {
    /// One entry of an access list.
    enum Rule: Sendable, Equatable {
        case anyone
        case user(UInt32)
        case group(UInt32)
    }

    let read: [Rule]
    let write: [Rule]

    /// The default: anyone may read; the daemon's own user and root may write.
    static func defaults(daemonUID: UInt32) -> AccessPolicy {
        AccessPolicy(read: [.anyone], write: [.user(daemonUID), .user(0)])
    }

    /// What a connected peer may do, from its credentials as they were when it connected: a group rule matches its
    /// primary group or one of its supplementary groups (never a group database lookup: a process that dropped a
    /// group has given up what the group allows).
    func permissions(for peer: PeerCredentials) -> (read: Bool, write: Bool) {
        func allows(_ rules: [Rule]) -> Bool {
            rules.contains { rule in
                switch rule {
                case .anyone: true
                case .user(let uid): uid == peer.uid
                case .group(let gid): gid == peer.gid || peer.groups.contains(gid)
                }
            }
        }
        return (allows(read), allows(write))
    }

    /// Parses one access-list entry: `"*"`, a user name or uid, or `"@group"` (name or gid).
    static func rule(_ text: String) -> Rule? {
        if text == "*" { return .anyone }
        if text.hasPrefix("@") {
            let name = String(text.dropFirst())
            if let gid = UInt32(name) { return .group(gid) }
            return UserDatabase.groupID(named: name).map(Rule.group)
        }
        if let uid = UInt32(text) { return .user(uid) }
        return UserDatabase.userID(named: text).map(Rule.user)
    }
}
