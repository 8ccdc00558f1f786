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
        var entry = passwd()
        var result: UnsafeMutablePointer<passwd>?
        var buffer = [CChar](repeating: 0, count: 16384)
        let status =
            if let uid = UInt32(nameOrID) {
                getpwuid_r(uid, &entry, &buffer, buffer.count, &result)
            } else {
                getpwnam_r(nameOrID, &entry, &buffer, buffer.count, &result)
            }
        guard status == 0, result != nil else { return nil }
        return UserAccount(
            name: entry.pw_name.map(text) ?? nameOrID, uid: entry.pw_uid, gid: entry.pw_gid,
            home: entry.pw_dir.map(text) ?? "/")
    }

    private static func text(_ pointer: UnsafeMutablePointer<CChar>) -> String {
        String(decoding: UnsafeRawBufferPointer(start: pointer, count: strlen(pointer)), as: UTF8.self)
    }
}
