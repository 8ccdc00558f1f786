/// A plugin's life (docs/protocol.md 2.2-2.5) as a value: the state it is in, holding exactly what that state needs,
/// and transitions that return what the runner is to do. It holds no process, timer or clock: the runner performs
/// the actions and passes the time in, so every path can be tested without a process.
///
/// `idle` → `start` → `starting` → `initialized` → `running`. An exit (or a failed spawn) goes through `ended` to
/// `backoff`, whose timer starts it again, or to `failed` once the restart policy gives up. `stop` makes a live
/// plugin `stopping` and anything else `stopped`; from those nothing starts again.
struct PluginLifecycle {
    /// One start of the plugin's process, from its spawn to its exit.
    struct Run {
        /// Which start this is: a timer armed for an earlier start finds it gone and does nothing.
        let attempt: Int
        /// Why the host is ending the process, once it is: the exit that follows fails what is in flight with it.
        var ending: Ending?
    }

    /// Why the host ends a plugin's process.
    struct Ending {
        let code: PluginFailure
        let message: String
        /// Whether a later start can help: false after a protocol-version mismatch or a routing conflict.
        var restartable = true
        /// Ended by `restartNow`: the exit is no death of the update request in flight.
        var requested = false
    }

    enum State {
        /// Not started yet.
        case idle
        /// Spawned, `initialize` sent, its answer not in yet.
        case starting(Run)
        /// Initialized: effects and update requests go out.
        case running(Run)
        /// Ended; start number `attempt` waits out its delay, and its timer's firing starts the next one.
        case backoff(attempt: Int)
        /// Its restart policy gave up, or its start was refused: its effects fail at once until `restartNow`.
        case failed
        /// Being shut down for good; `done` is called once its process has ended. `initialized`: whether it had
        /// finished the handshake, which is what `status` shows until the exit.
        case stopping(Run, initialized: Bool, done: () -> Void)
        /// Shut down for good; `failed`: it had failed before, and `status` still says so.
        case stopped(failed: Bool)
    }

    private(set) var state: State = .idle
    private let policy: PluginRestartPolicy
    /// Start times (monotonic nanoseconds) since the budget was last reset, oldest first: the restart policy's input.
    private(set) var starts: [UInt64] = []
    private var attempts = 0
    private(set) var restarts = 0
    /// Whether the first start has ended one way or the other (initialized, or failed to start).
    private(set) var hasSettled = false
    /// Why the last start ended, for `--check` and `status`.
    private(set) var lastProblem: String?

    init(policy: PluginRestartPolicy) {
        self.policy = policy
    }

    /// The state as `status`, traces and effect failures name it.
    var status: PluginState {
        switch state {
        case .idle: .stopped
        case .starting: .starting
        case .running: .running
        case .backoff: .backoff
        case .failed: .failed
        case .stopping(_, let initialized, _): initialized ? .running : .starting
        case .stopped(let failed): failed ? .failed : .stopped
        }
    }

    /// The start whose process is alive (starting, running or stopping).
    var live: Run? {
        switch state {
        case .starting(let run), .running(let run), .stopping(let run, _, _): run
        case .idle, .backoff, .failed, .stopped: nil
        }
    }

    private mutating func setLive(_ run: Run) {
        switch state {
        case .starting: state = .starting(run)
        case .running: state = .running(run)
        case .stopping(_, let initialized, let done): state = .stopping(run, initialized: initialized, done: done)
        case .idle, .backoff, .failed, .stopped: break
        }
    }

    /// Whether the plugin is being shut down for good.
    var isStopping: Bool {
        if case .stopping = state { return true }
        return false
    }

    // MARK: - Transitions

    /// A start at `now`: returns its attempt number to spawn, or `nil` when nothing may start (a process is alive,
    /// or the plugin is stopping or stopped).
    mutating func start(now: UInt64) -> Int? {
        switch state {
        case .idle, .backoff, .failed:
            attempts += 1
            starts.append(now)
            state = .starting(Run(attempt: attempts))
            return attempts
        case .starting, .running, .stopping, .stopped:
            return nil
        }
    }

    /// The `initialize` handshake finished: true when the plugin is now initialized (also while it is stopping).
    mutating func initialized() -> Bool {
        switch state {
        case .starting(let run): state = .running(run)
        case .stopping(let run, false, let done): state = .stopping(run, initialized: true, done: done)
        default: return false
        }
        hasSettled = true
        return true
    }

    /// Whether start `attempt` is still waiting for its `initialize` answer (its start timeout applies).
    func awaitsInitialize(attempt: Int) -> Bool {
        switch state {
        case .starting(let run), .stopping(let run, false, _): run.attempt == attempt
        default: false
        }
    }

    /// The host ends the live process for `ending`: true when it is to be killed now; false when there is none or it
    /// is already being ended (the first reason stands).
    mutating func end(_ ending: Ending) -> Bool {
        guard var run = live, run.ending == nil else { return false }
        run.ending = ending
        setLive(run)
        return true
    }

    /// Whether a closed pipe ends the live process: not when it is being ended already, or shut down (which ends
    /// it in its own time).
    var endsOnClosedPipe: Bool {
        guard let run = live, run.ending == nil else { return false }
        return !isStopping
    }

    /// What a start ending means, from `processExited`.
    enum Exit {
        /// It was shut down as asked: what is in flight fails `Unavailable`, then `done` once its groups are gone.
        case stopped(done: () -> Void)
        /// It ended unasked, or the host ended it: what is in flight fails with `ending`, then `ended` decides.
        case ended(Ending)
    }

    /// The live process ended with `status` (`nil` when none is alive). After `.ended`, the runner fails what was
    /// in flight and then calls `ended(restartable:forgiving:now:)`.
    mutating func processExited(status: String) -> Exit? {
        switch state {
        case .stopping(_, _, let done):
            state = .stopped(failed: false)
            return .stopped(done: done)
        case .starting(let run), .running(let run):
            let ending = run.ending ?? Ending(code: .pluginExited, message: "exited (\(status))")
            lastProblem = ending.message
            return .ended(ending)
        case .idle, .backoff, .failed, .stopped:
            return nil
        }
    }

    /// The spawn of the start in progress failed with `problem`; the plugin then goes on as after an exit.
    mutating func spawnFailed(_ problem: String, now: UInt64) -> After {
        lastProblem = problem
        return ended(restartable: true, forgiving: 0, now: now)
    }

    /// What follows an end.
    enum After: Equatable {
        /// `backoff`: start number `attempt` is due after this many seconds (`restartDue`).
        case restart(afterSeconds: Double, attempt: Int)
        /// `failed`, for this reason.
        case fail(String)
    }

    /// Decides what follows the end of the live start (exit or failed spawn) at `now`. `forgiving` starts come off the
    /// budget first: deaths an update request caused (a poison event), not the plugin.
    mutating func ended(restartable: Bool, forgiving: Int, now: UInt64) -> After {
        hasSettled = true
        starts.removeLast(min(forgiving, starts.count))
        guard restartable else {
            state = .failed
            return .fail("cannot be started as configured")
        }
        starts = policy.recent(starts, now: now)
        switch policy.decide(starts: starts, now: now) {
        case .giveUp(let why):
            state = .failed
            return .fail(why)
        case .restart(let delay):
            state = .backoff(attempt: attempts + 1)
            return .restart(afterSeconds: delay, attempt: attempts + 1)
        }
    }

    /// The backoff timer for start `attempt` fired: true when that start is due now (not when `restartNow` or `stop`
    /// came first).
    mutating func restartDue(attempt: Int) -> Bool {
        guard case .backoff(attempt) = state else { return false }
        restarts += 1
        return true
    }

    /// What `restartNow` asks of the runner.
    enum RestartNow: Equatable {
        /// Nothing: the plugin is stopping or stopped.
        case none
        /// Start it now.
        case start
        /// End the live process (SIGTERM to its group, SIGKILL later); its exit restarts it after the initial delay.
        case terminate
    }

    /// `plugin restart` (like `systemctl reset-failed`): forgets the restart budget, and restarts the plugin now.
    mutating func restartNow() -> RestartNow {
        switch state {
        case .stopping, .stopped:
            return .none
        case .starting(var run), .running(var run):
            starts = []
            run.ending = Ending(code: .pluginExited, message: "was restarted on request", requested: true)
            setLive(run)
            return .terminate
        case .idle, .backoff, .failed:
            starts = []
            restarts += 1
            return .start
        }
    }

    /// What `stop` asks of the runner.
    enum Stop {
        /// Send `shutdown` (an initialized plugin), closing stdin if it does not answer.
        case shutDown
        /// Close its stdin now (a plugin still starting).
        case closeStdin
        /// No process is alive: `done` once its groups are gone.
        case finished(() -> Void)
    }

    /// Shuts the plugin down for good; `done` is to be called once its process has ended.
    mutating func stop(then done: @escaping () -> Void) -> Stop {
        switch state {
        case .starting(let run):
            state = .stopping(run, initialized: false, done: done)
            return .closeStdin
        case .running(let run):
            state = .stopping(run, initialized: true, done: done)
            return .shutDown
        case .stopping(let run, let initialized, _):
            state = .stopping(run, initialized: initialized, done: done)
            return initialized ? .shutDown : .closeStdin
        case .idle, .backoff:
            state = .stopped(failed: false)
            return .finished(done)
        case .failed:
            state = .stopped(failed: true)
            return .finished(done)
        case .stopped:
            return .finished(done)
        }
    }
}
