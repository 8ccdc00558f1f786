import MobiusSystem

/// The checks docs/protocol.md 1.1 makes on the control socket's directory before binding, so that another local user
/// can never pre-create the directory and own the path (as tmux and OpenSSH check theirs).
///
/// A missing directory is created (with its missing parents): mode 0700 for the private `/tmp/mobiusd-<uid>`
/// fallback, 0755 otherwise. An existing one must be owned by the daemon's user or root; others may not write to it,
/// and another group may not either, unless it is sticky (as /tmp is: then only an entry's owner may replace it);
/// the daemon's own group may write. A symbolic link
/// must itself be owned by the daemon's user or root, and what it points to is checked the same way.
enum SocketDirectory {
    /// Why a socket directory was refused.
    struct Refusal: Error, CustomStringConvertible {
        let directory: String
        let reason: String

        var description: String { "socket directory \(directory): \(reason)" }
    }

    /// Creates `directory` if missing (with `mode`), then checks it for a daemon running as `uid`/`gid`.
    static func prepare(_ directory: String, mode: UInt32, uid: UInt32, gid: UInt32) throws(Refusal) {
        let found: FileStatus?
        do {
            found = try FileSystem.status(directory)
        } catch {
            throw Refusal(directory: directory, reason: "cannot inspect it: \(error.reason)")
        }
        if found == nil {
            do {
                try FileSystem.makeDirectories(directory, mode: mode)
                // mkdir applies the umask; the mode is the point here.
                try FileSystem.setMode(directory, mode)
            } catch {
                throw Refusal(directory: directory, reason: "cannot create it: \(error.reason)")
            }
        }
        try check(directory, uid: uid, gid: gid)
    }

    /// Checks an existing directory; see the type's summary for the rules.
    static func check(_ directory: String, uid: UInt32, gid: UInt32) throws(Refusal) {
        let link: FileStatus?
        let target: FileStatus?
        do {
            link = try FileSystem.status(directory)
            target = try FileSystem.status(directory, followingLinks: true)
        } catch {
            throw Refusal(directory: directory, reason: "cannot inspect it: \(error.reason)")
        }
        guard let link, let target else { throw Refusal(directory: directory, reason: "does not exist") }
        if link.kind == .symbolicLink, link.owner != uid, link.owner != 0 {
            throw Refusal(
                directory: directory, reason: "is a symbolic link owned by uid \(link.owner), not by uid \(uid) or root"
            )
        }
        if let problem = problem(with: target, uid: uid, gid: gid) {
            throw Refusal(directory: directory, reason: problem)
        }
    }

    /// What is wrong with a directory's status for a daemon running as `uid`/`gid`, or `nil`.
    static func problem(with status: FileStatus, uid: UInt32, gid: UInt32) -> String? {
        guard status.kind == .directory else { return "is not a directory" }
        guard status.owner == uid || status.owner == 0 else {
            return "is owned by uid \(status.owner), not by uid \(uid) (the daemon's user) or root"
        }
        let mode = String(status.permissions, radix: 8)
        if status.isWritableByOthers && !status.isSticky {
            return "is writable by every user (mode \(mode)) without the sticky bit"
        }
        if status.isWritableByGroup && status.group != gid && !status.isSticky {
            return "is writable by group \(status.group), which is not the daemon's group \(gid) (mode \(mode))"
        }
        return nil
    }
}
