internal import Glibc

extension UserDatabase {
    /// Every user name the password database lists (at most `limit`), for "did you mean" after a name was not
    /// found. The corresponding C function is `getpwent`; not reentrant, so only one thread may call it at once
    /// (start-up and the reload worker).
    package static func allUserNames(limit: Int = 100_000) -> [String] {
        allNames(limit: limit, rewind: setpwent, next: getpwent, end: endpwent, name: \.pw_name)
    }

    /// Every group name the group database lists (at most `limit`), for "did you mean". The corresponding C
    /// function is `getgrent`; not reentrant, like `allUserNames`.
    package static func allGroupNames(limit: Int = 100_000) -> [String] {
        allNames(limit: limit, rewind: setgrent, next: getgrent, end: endgrent, name: \.gr_name)
    }

    /// Walks a database from its start (`rewind`) through `next` to its end or `limit` names, then closes it.
    private static func allNames<Entry>(
        limit: Int, rewind: () -> Void, next: () -> UnsafeMutablePointer<Entry>?, end: () -> Void,
        name: KeyPath<Entry, UnsafeMutablePointer<CChar>?>
    ) -> [String] {
        rewind()
        defer { end() }
        var names: [String] = []
        while names.count < limit, let entry = next() {
            if let found = entry.pointee[keyPath: name] { names.append(text(found)) }
        }
        return names
    }
}
