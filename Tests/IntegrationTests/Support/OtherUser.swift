/// A process identity other than the test's (which runs as root): uid, primary gid and supplementary groups, set with
/// `setpriv` before it execs a client. The kernel takes any numbers, so identities need no entry in /etc/passwd or
/// /etc/group, and nothing on the host changes.
struct OtherUser: CustomStringConvertible {
    let uid: UInt32
    let gid: UInt32
    let groups: [UInt32]

    init(uid: UInt32, gid: UInt32? = nil, groups: [UInt32] = []) {
        self.uid = uid
        self.gid = gid ?? uid
        self.groups = groups
    }

    static let nobody = OtherUser(uid: 65534)

    var description: String { "uid \(uid) gid \(gid) groups \(groups)" }

    /// `setpriv` and its options: this identity, then the command that follows.
    var launcher: [String] {
        let groupOption =
            groups.isEmpty ? "--clear-groups" : "--groups=" + groups.map(String.init).joined(separator: ",")
        return ["setpriv", "--reuid=\(uid)", "--regid=\(gid)", groupOption, "--"]
    }

    /// Runs socat as this user against `socketPath`, feeding it `lines`; its exit and output (socat's own errors,
    /// such as a refused connect(), are on stderr).
    func socat(_ socketPath: String, _ lines: [String]) throws -> DaemonToolRun {
        for tool in ["setpriv", "socat"] where DaemonSpawn.which(tool) == nil {
            throw DaemonTestError("\(tool) is not installed (run `make deps`); the access tests need it")
        }
        let input = Array(lines.map { $0 + "\n" }.joined().utf8)
        let command = launcher + ["socat", "-t", "5", "-", "UNIX-CONNECT:\(socketPath)"]
        return try DaemonToolRun.run(command[0], Array(command.dropFirst()), stdin: input)
    }

    /// The daemon's replies to `lines` sent as this user; throws when socat fails (the connection was refused).
    func replies(_ daemon: DaemonProcess, _ lines: [String]) throws -> [DaemonReply] {
        let run = try socat(daemon.socketPath, lines)
        guard run.exit == .exited(0) else {
            throw DaemonTestError("socat as \(self): \(run.exit); stderr: \(run.stderr)")
        }
        return try run.stdoutLines.map { try DaemonReply(line: $0) }
    }
}
