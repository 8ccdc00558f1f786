import MobiusSystem

/// The groups of recently seen users, so access checks that name groups look each user up in NSS (which may mean
/// LDAP or a slow file) at most once per `lifetime`. Lookups run on the blocking worker, never on the reactor.
struct GroupMembershipCache {
    private struct Entry {
        let groups: [UInt32]
        let fetchedAt: UInt64
    }

    private var entries: [UInt32: Entry] = [:]
    /// Connections waiting for a user's lookup, by uid.
    var waiting: [UInt32: [ConnectionID]] = [:]
    static let lifetimeNanoseconds: UInt64 = 30_000_000_000
    static let maxEntries = 4096

    /// The cached groups of `uid`, if fresh.
    func groups(of uid: UInt32, now: UInt64) -> [UInt32]? {
        guard let entry = entries[uid], now - entry.fetchedAt < Self.lifetimeNanoseconds else { return nil }
        return entry.groups
    }

    mutating func store(_ groups: [UInt32], for uid: UInt32, now: UInt64) {
        if entries.count >= Self.maxEntries { entries.removeAll() }
        entries[uid] = Entry(groups: groups, fetchedAt: now)
    }
}
