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

    /// Whether deciding for `peer` needs its supplementary groups (a group rule its primary group does not
    /// satisfy, where no other rule already decides both permissions).
    func needsGroups(for peer: PeerCredentials) -> Bool {
        permissions(for: peer, groups: nil) == nil
    }

    /// What a connected peer may do; `nil` when that depends on supplementary groups that `groups` (the peer's
    /// groups, from NSS) does not give.
    func permissions(for peer: PeerCredentials, groups: [UInt32]?) -> (read: Bool, write: Bool)? {
        func allows(_ rules: [Rule]) -> Bool? {
            var undecided = false
            for rule in rules {
                switch rule {
                case .anyone: return true
                case .user(let uid): if uid == peer.uid { return true }
                case .group(let gid):
                    if gid == peer.gid { return true }
                    if let groups {
                        if groups.contains(gid) { return true }
                    } else {
                        undecided = true
                    }
                }
            }
            return undecided ? nil : false
        }
        guard let read = allows(read), let write = allows(write) else { return nil }
        return (read, write)
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
