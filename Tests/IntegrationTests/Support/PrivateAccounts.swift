import MobiusSystem

/// Users and groups that exist only for one daemon: copies of /etc/passwd and /etc/group with extra lines,
/// bind-mounted over the real files in a mount namespace of the daemon's own (`unshare`, as root), so the daemon and
/// its plugins see them through NSS and the host's /etc never changes.
final class PrivateAccounts {
    let scratch = DaemonScratch()
    private let passwd: String
    private let group: String

    /// `users` and `groups` are lines in the files' own formats (`name:x:uid:gid::home:shell`,
    /// `name:x:gid:member,member`), added after the real files' lines.
    init(users: [String] = [], groups: [String] = []) throws {
        passwd = scratch.write("passwd", Self.lines(of: "/etc/passwd", adding: users))
        group = scratch.write("group", Self.lines(of: "/etc/group", adding: groups))
    }

    private static func lines(of path: String, adding extra: [String]) -> String {
        var text = (try? FileSystem.read(path)).map { String(decoding: $0, as: UTF8.self) } ?? ""
        if !text.isEmpty && !text.hasSuffix("\n") { text += "\n" }
        return text + extra.map { $0 + "\n" }.joined()
    }

    /// Runs the rest of the command line with the private files in place of /etc/passwd and /etc/group
    /// (`--no-mtab`: mount keeps no notes in the host's /run/mount).
    var launcher: [String] {
        let script =
            "mount --no-mtab --bind '\(passwd)' /etc/passwd && mount --no-mtab --bind '\(group)' /etc/group"
            + " && exec \"$0\" \"$@\""
        return ["unshare", "--mount", "--propagation", "private", "--", "/bin/sh", "-c", script]
    }

    /// `mobiusd --config` with `config` in a fresh scratch directory, seeing these accounts.
    func startDaemon(config: String) throws -> DaemonProcess {
        let daemonScratch = DaemonScratch()
        let socket = daemonScratch.file("x.sock")
        return try DaemonProcess(
            scratch: daemonScratch,
            arguments: ["--socket", socket, "--config", daemonScratch.write("mobiusd.json", config)],
            socketPath: socket, launcher: launcher)
    }
}
