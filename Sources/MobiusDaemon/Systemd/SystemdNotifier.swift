internal import CSystemd
import MobiusSystem
import Synchronization

/// The daemon's side of sd_notify: state changes sent to the service manager's `NOTIFY_SOCKET`.
///
/// `sd_notify` blocks while the manager's socket queue is full (a Unix datagram queue holds only
/// `net.unix.max_dgram_qlen` messages, 10 by default), so messages are sent by a thread of their own, in order, and
/// the reactor never waits on systemd. A watchdog ping still waiting to go out makes the next one pointless: it is
/// dropped. Outside systemd (no `NOTIFY_SOCKET`) every call does nothing and no thread starts. A send that fails
/// (the socket went away) is logged, rate-limited, and otherwise ignored: the manager's problems never stop the
/// daemon.
final class SystemdNotifier: Sendable {
    /// Whether a service manager listens (`NOTIFY_SOCKET` is set and not empty).
    let isActive: Bool
    private let log: DaemonLog
    private let sender = BlockingWorker(name: "mobiusd-notify", stackSize: 256 << 10)
    private let watchdogQueued = Atomic<Bool>(false)

    init(log: DaemonLog) {
        self.log = log
        isActive = SystemProcess.environment("NOTIFY_SOCKET").map { !$0.isEmpty } ?? false
    }

    /// Queues newline-separated `KEY=value` assignments for the sending thread.
    func send(_ assignments: String) {
        guard isActive else { return }
        sender.submit { [self] in deliver(assignments) }
    }

    /// Waits (at most `timeoutNanoseconds`) until everything queued has been sent; for exit, so `STOPPING=1` is not
    /// lost.
    func flush(timeoutNanoseconds: UInt64 = 1_000_000_000) {
        guard isActive else { return }
        let done = ThreadCondition()
        let sent = Mutex(false)
        sender.submit {
            done.withLock { sent.withLock { $0 = true } }
            done.broadcast()
        }
        let deadline = SystemProcess.monotonicNanoseconds() + timeoutNanoseconds
        done.withLock {
            while !sent.withLock({ $0 }) {
                let now = SystemProcess.monotonicNanoseconds()
                guard now < deadline else { return }
                _ = done.wait(timeoutNanoseconds: deadline - now)
            }
        }
    }

    /// The sending thread. The corresponding C function is `sd_notify`.
    private func deliver(_ assignments: String) {
        let result = sd_notify(0, assignments)
        if result < 0 {
            let error = SystemError(errno: Errno(rawValue: -result), operation: "sd_notify", subject: "NOTIFY_SOCKET")
            let what = assignments.prefix { $0 != "\n" }
            log.limited("sd_notify", .warning, "cannot tell systemd \(what): \(error)")
        }
    }

    /// `READY=1` with the status line.
    func ready(status: String) { send("READY=1\nSTATUS=\(Self.oneLine(status))") }

    /// `STATUS=`: one line of text for `systemctl status`.
    func status(_ text: String) { send("STATUS=\(Self.oneLine(text))") }

    /// `STATUS=` during long start-up work (recovery), with `EXTEND_TIMEOUT_USEC=` when `microseconds` is given: the
    /// work advances, and systemd is to wait that much longer for the next message before its start timeout applies.
    func progress(_ text: String, extendingBy microseconds: UInt64?) {
        send((microseconds.map { "EXTEND_TIMEOUT_USEC=\($0)\n" } ?? "") + "STATUS=\(Self.oneLine(text))")
    }

    /// `STOPPING=1`: shutdown has begun.
    func stopping() { send("STOPPING=1\nSTATUS=stopping") }

    /// `RELOADING=1` with the monotonic time in microseconds, as systemd asks of a reload's start.
    func reloading() {
        send("RELOADING=1\nMONOTONIC_USEC=\(SystemProcess.monotonicNanoseconds() / 1000)\nSTATUS=reloading")
    }

    /// `WATCHDOG=1`: the loop is alive. Called on the reactor thread, so a wedged loop sends none.
    func watchdog() {
        guard isActive, !watchdogQueued.exchange(true, ordering: .acquiringAndReleasing) else { return }
        sender.submit { [self] in
            watchdogQueued.store(false, ordering: .releasing)
            deliver("WATCHDOG=1")
        }
    }

    /// `text` with line breaks turned into spaces and cut to 200 bytes, so an assignment stays one line.
    static func oneLine(_ text: String) -> String {
        var line = String(text.map { $0.isNewline ? " " : $0 })
        while line.utf8.count > 200 { line.removeLast() }
        return line
    }
}
