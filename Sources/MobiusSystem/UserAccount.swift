internal import Glibc

/// A user's entry in the password database: what running a program as that user needs.
package struct UserAccount: Sendable, Equatable {
    /// The user name.
    package let name: String
    /// The user id.
    package let uid: UInt32
    /// The primary group id.
    package let gid: UInt32
    /// The home directory.
    package let home: String

    /// Looks a user up by name, or by number when `nameOrID` is all digits; `nil` when there is no such user.
    /// The corresponding C functions are `getpwnam_r` and `getpwuid_r`.
    package static func lookUp(_ nameOrID: String) -> UserAccount? {
        let uid = UInt32(nameOrID)
        return UserDatabase.withEntry(
            passwd(), bufferSize: 16384,
            { entry, buffer, size, result in
                if let uid {
                    getpwuid_r(uid, entry, buffer, size, result)
                } else {
                    getpwnam_r(nameOrID, entry, buffer, size, result)
                }
            }
        ) { entry in
            UserAccount(
                name: entry.pw_name.map(UserDatabase.text) ?? nameOrID, uid: entry.pw_uid, gid: entry.pw_gid,
                home: entry.pw_dir.map(UserDatabase.text) ?? "/")
        }
    }
}
