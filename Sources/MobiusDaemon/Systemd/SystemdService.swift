import MobiusCore
import MobiusSystem

/// The daemon's half of the systemd contract (docs/protocol.md 4), on the reactor thread: `READY=1` once the readiness
/// gate opens, `STATUS=` kept current, `STOPPING=1`, `RELOADING=1` then `READY=1`, and the watchdog.
///
/// Outside systemd the notifier sends nothing and the per-round check returns at once; the `ready` log line is
/// written either way.
final class SystemdService {
    /// What `STATUS=` summarizes, read at the end of a round.
    struct Figures: Equatable {
        var seq: UInt64
        var connections: Int
    }

    /// Least time between two `STATUS=` updates caused by traffic.
    static var statusIntervalNanoseconds: UInt64 { 1_000_000_000 }

    let notifier: SystemdNotifier
    private let reactor: Reactor
    private let log: DaemonLog
    private let app: String
    private let figures: () -> Figures
    private var ready = false
    private var shown = Figures(seq: .max, connections: -1)
    private var shownAt: UInt64 = 0
    private var statusTimerArmed = false
    private var stopping = false
    /// What the last `startingStatus` said.
    private var startingText: String?
    /// The last reload was refused: every later `STATUS=` says so, until the next reload.
    private var refusedReload: String?

    init(reactor: Reactor, log: DaemonLog, app: String, figures: @escaping () -> Figures) {
        self.reactor = reactor
        self.log = log
        self.app = app
        self.figures = figures
        notifier = SystemdNotifier(log: log)
    }

    /// Starts the watchdog and sends `READY=1` (from the reactor thread) once `readiness` is ready; until then the
    /// status names the holds still taken.
    func start(readiness: ReadinessGate) {
        SystemdWatchdog(reactor: reactor, notifier: notifier, log: log)?.start()
        let pending = readiness.pendingNames
        if !pending.isEmpty { notifier.status("starting: waiting for \(pending.joined(separator: ", "))") }
        let service = UncheckedSendable(value: self)
        let waker = reactor.waker
        readiness.whenReady { waker.post { service.value.becomeReady() } }
    }

    /// Before `READY=1`: `STATUS=` says what start-up waits for (a replay stalled by a failing update plugin);
    /// asked each round, sent when the text changes.
    func startingStatus(_ text: String) {
        guard !ready, !stopping, text != startingText else { return }
        startingText = text
        notifier.status("starting: \(text)")
    }

    private func becomeReady() {
        guard !stopping else { return }
        ready = true
        shown = figures()
        shownAt = SystemProcess.monotonicNanoseconds()
        notifier.ready(status: statusLine(shown))
        log.notice("ready", fields: LogFields(seq: shown.seq))
    }

    /// End of a reactor round: when the figures changed, `STATUS=` is updated, at most once per
    /// `statusIntervalNanoseconds` (a timer sends the last change of a busy second).
    func endOfRound() {
        guard notifier.isActive, ready, !statusTimerArmed, !stopping, figures() != shown else { return }
        let due = shownAt + Self.statusIntervalNanoseconds
        let now = SystemProcess.monotonicNanoseconds()
        if now >= due {
            sendStatus()
        } else {
            statusTimerArmed = true
            reactor.after(nanoseconds: due - now) { [self] in
                statusTimerArmed = false
                sendStatus()
            }
        }
    }

    private func sendStatus() {
        // A timer armed before a reload may fire after it: the reload's outcome stays until the figures change.
        guard !stopping, figures() != shown else { return }
        shown = figures()
        shownAt = SystemProcess.monotonicNanoseconds()
        notifier.status(statusLine(shown))
    }

    private func statusLine(_ figures: Figures) -> String {
        let connections = figures.connections == 1 ? "1 connection" : "\(figures.connections) connections"
        return "app \(app): seq \(figures.seq), \(connections)" + (refusedReload.map { "; \($0)" } ?? "")
    }

    /// SIGTERM/SIGINT: `STOPPING=1`; no more status updates.
    func beginStopping() {
        stopping = true
        notifier.stopping()
    }

    /// The reactor has stopped: waits briefly until the last messages (`STOPPING=1`) are sent.
    func finish() {
        notifier.flush()
    }

    /// SIGHUP: `RELOADING=1` with `MONOTONIC_USEC=`. Before `READY=1` nothing is sent: systemd still waits for
    /// the start, and a `READY=1` ending the reload would come too early.
    func beginReload() {
        guard ready, !stopping else { return }
        notifier.reloading()
    }

    /// The reload is over (applied or refused): `READY=1` again, with `outcome` as the status for now. A refused
    /// reload's outcome also stays in every later status, until the next reload.
    func endReload(outcome: String, refused: Bool = false) {
        refusedReload = refused ? outcome : nil
        guard ready, !stopping else { return }
        shown = figures()
        shownAt = SystemProcess.monotonicNanoseconds()
        notifier.ready(status: outcome)
    }
}
