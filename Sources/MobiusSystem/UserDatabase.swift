internal import Glibc

/// Looks up users and groups (for `access` rules and the socket's group).
package enum UserDatabase {
    /// The uid of a user name, or `nil` if there is no such user. The corresponding C function is `getpwnam_r`.
    package static func userID(named name: String) -> UInt32? {
        withEntry(passwd(), bufferSize: 4096, { getpwnam_r(name, $0, $1, $2, $3) }, \.pw_uid)
    }

    /// The gid of a group name, or `nil` if there is no such group. The corresponding C function is `getgrnam_r`.
    package static func groupID(named name: String) -> UInt32? {
        withEntry(group(), bufferSize: 16384, { getgrnam_r(name, $0, $1, $2, $3) }, \.gr_gid)
    }

    /// Every group `uid` belongs to (primary and supplementary), from the group database.
    package static func groups(ofUser uid: UInt32, primaryGroup gid: UInt32) -> [UInt32] {
        let groups = withEntry(passwd(), bufferSize: 4096, { getpwuid_r(uid, $0, $1, $2, $3) }) { entry in
            entry.pw_name.map { name in groupList(of: name, primaryGroup: gid) } ?? [gid]
        }
        return groups ?? [gid]
    }

    /// The corresponding C function is `getgrouplist`.
    private static func groupList(of name: UnsafeMutablePointer<CChar>, primaryGroup gid: UInt32) -> [UInt32] {
        var count: Int32 = 64
        var groups = [gid_t](repeating: 0, count: Int(count))
        if getgrouplist(name, gid, &groups, &count) < 0 {
            groups = [gid_t](repeating: 0, count: Int(count))
            _ = getgrouplist(name, gid, &groups, &count)
        }
        return Array(groups.prefix(Int(max(count, 0))))
    }

    /// Calls a reentrant lookup (`getpwnam_r`, `getpwuid_r`, `getgrnam_r`) with a buffer of `bufferSize` bytes and
    /// reads the entry it found with `read`, while the buffer its strings point into is alive; `nil` when there is
    /// no such entry or the lookup failed.
    static func withEntry<Entry, Value>(
        _ empty: Entry, bufferSize: Int, _ lookUp: ReentrantLookUp<Entry>, _ read: (Entry) -> Value
    ) -> Value? {
        var entry = empty
        var result: UnsafeMutablePointer<Entry>?
        var buffer = [CChar](repeating: 0, count: bufferSize)
        return buffer.withUnsafeMutableBufferPointer { bytes in
            guard let base = bytes.baseAddress, lookUp(&entry, base, bytes.count, &result) == 0, result != nil else {
                return nil
            }
            return read(entry)
        }
    }

    /// A C reentrant lookup's arguments after its key: the entry to fill, a buffer and its size, and the result.
    typealias ReentrantLookUp<Entry> = (
        _ entry: UnsafeMutablePointer<Entry>, _ buffer: UnsafeMutablePointer<CChar>, _ size: Int,
        _ result: UnsafeMutablePointer<UnsafeMutablePointer<Entry>?>
    ) -> Int32

    /// A C string from the databases as a Swift string.
    static func text(_ pointer: UnsafeMutablePointer<CChar>) -> String {
        String(decoding: UnsafeRawBufferPointer(start: pointer, count: strlen(pointer)), as: UTF8.self)
    }
}
