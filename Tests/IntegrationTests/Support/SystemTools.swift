/// systemd's own tools the systemd tests run (Debian package `systemd`, which `make deps` installs), found on PATH.
enum SystemTools {
    static let socketActivate = DaemonSpawn.which("systemd-socket-activate")
    static let analyze = DaemonSpawn.which("systemd-analyze")
    static let socat = DaemonSpawn.which("socat")
    /// Whether this process may give a child a private mount namespace (root with CAP_SYS_ADMIN, as the tests
    /// normally run): the journal tests mount a stand-in journald socket there.
    static let canUnshareMounts: Bool = {
        guard let unshare = DaemonSpawn.which("unshare") else { return false }
        let probe = try? DaemonToolRun.run(unshare, ["--mount", "--propagation", "private", "--", "/bin/true"])
        return probe?.exit == .exited(0)
    }()
}
