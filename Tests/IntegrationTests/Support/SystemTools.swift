/// systemd's own tools the systemd tests run (Debian package `systemd`, which `make deps` installs), found on PATH.
enum SystemTools {
    static let socketActivate = DaemonSpawn.which("systemd-socket-activate")
    static let analyze = DaemonSpawn.which("systemd-analyze")
    static let socat = DaemonSpawn.which("socat")
}
