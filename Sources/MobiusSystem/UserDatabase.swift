internal import Glibc

/// Looks up users and groups (for `access` rules and the socket's group).
package enum UserDatabase {
    /// The uid of a user name, or `nil` if there is no such user.
    package static func userID(named name: String) -> UInt32? {
        var entry = passwd()
        var result: UnsafeMutablePointer<passwd>?
        var buffer = [CChar](repeating: 0, count: 4096)
        guard getpwnam_r(name, &entry, &buffer, buffer.count, &result) == 0, result != nil else { return nil }
        return entry.pw_uid
    }

    /// The gid of a group name, or `nil` if there is no such group.
    package static func groupID(named name: String) -> UInt32? {
        var entry = group()
        var result: UnsafeMutablePointer<group>?
        var buffer = [CChar](repeating: 0, count: 16384)
        guard getgrnam_r(name, &entry, &buffer, buffer.count, &result) == 0, result != nil else { return nil }
        return entry.gr_gid
    }

    /// Every group `uid` belongs to (primary and supplementary), from the group database.
    package static func groups(ofUser uid: UInt32, primaryGroup gid: UInt32) -> [UInt32] {
        var entry = passwd()
        var result: UnsafeMutablePointer<passwd>?
        var buffer = [CChar](repeating: 0, count: 4096)
        guard getpwuid_r(uid, &entry, &buffer, buffer.count, &result) == 0, result != nil, let name = entry.pw_name
        else { return [gid] }
        var count: Int32 = 64
        var groups = [gid_t](repeating: 0, count: Int(count))
        if getgrouplist(name, gid, &groups, &count) < 0 {
            groups = [gid_t](repeating: 0, count: Int(count))
            _ = getgrouplist(name, gid, &groups, &count)
        }
        return Array(groups.prefix(Int(max(count, 0))))
    }
}
