internal import CSystemd
import MobiusSystem

/// The daemon's side of sd_notify: state changes sent to the service manager's `NOTIFY_SOCKET`.
///
/// Outside systemd (no `NOTIFY_SOCKET`) every call does nothing. A send that fails (the socket went away) is logged,
/// rate-limited, and otherwise ignored: the service manager's problems never stop the daemon.
final class SystemdNotifier: Sendable {
    /// Whether a service manager listens (`NOTIFY_SOCKET` is set and not empty).
    let isActive: Bool
    private let log: DaemonLog

    init(log: DaemonLog) {
        self.log = log
        isActive = SystemProcess.environment("NOTIFY_SOCKET").map { !$0.isEmpty } ?? false
    }

    /// Sends newline-separated `KEY=value` assignments. The corresponding C function is `sd_notify`.
    func send(_ assignments: String) {
        guard isActive else { return }
        let result = sd_notify(0, assignments)
        if result < 0 {
            let error = SystemError(errno: -result, operation: "sd_notify", subject: "NOTIFY_SOCKET")
            let what = assignments.prefix { $0 != "\n" }
            log.limited("sd_notify", .warning, "cannot tell systemd \(what): \(error)")
        }
    }

    /// `READY=1` with the status line.
    func ready(status: String) { send("READY=1\nSTATUS=\(Self.oneLine(status))") }

    /// `STATUS=`: one line of text for `systemctl status`.
    func status(_ text: String) { send("STATUS=\(Self.oneLine(text))") }

    /// `STOPPING=1`: shutdown has begun.
    func stopping() { send("STOPPING=1\nSTATUS=stopping") }

    /// `RELOADING=1` with the monotonic time in microseconds, as systemd asks of a reload's start.
    func reloading() {
        send("RELOADING=1\nMONOTONIC_USEC=\(SystemProcess.monotonicNanoseconds() / 1000)\nSTATUS=reloading")
    }

    /// `WATCHDOG=1`: the loop is alive.
    func watchdog() { send("WATCHDOG=1") }

    /// `text` with line breaks turned into spaces and cut to 200 bytes, so an assignment stays one line.
    static func oneLine(_ text: String) -> String {
        var line = String(text.map { $0.isNewline ? " " : $0 })
        while line.utf8.count > 200 { line.removeLast() }
        return line
    }
}
