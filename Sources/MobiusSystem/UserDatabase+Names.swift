internal import Glibc

extension UserDatabase {
    /// Every user name the password database lists (at most `limit`), for "did you mean" after a name was not
    /// found. The corresponding C function is `getpwent`; not reentrant, so only one thread may call it at once
    /// (start-up and the reload worker).
    package static func allUserNames(limit: Int = 100_000) -> [String] {
        setpwent()
        defer { endpwent() }
        var names: [String] = []
        while names.count < limit, let entry = getpwent() {
            if let name = entry.pointee.pw_name { names.append(text(name)) }
        }
        return names
    }

    /// Every group name the group database lists (at most `limit`), for "did you mean". The corresponding C
    /// function is `getgrent`; not reentrant, like `allUserNames`.
    package static func allGroupNames(limit: Int = 100_000) -> [String] {
        setgrent()
        defer { endgrent() }
        var names: [String] = []
        while names.count < limit, let entry = getgrent() {
            if let name = entry.pointee.gr_name { names.append(text(name)) }
        }
        return names
    }

    private static func text(_ pointer: UnsafeMutablePointer<CChar>) -> String {
        String(decoding: UnsafeRawBufferPointer(start: pointer, count: strlen(pointer)), as: UTF8.self)
    }
}
