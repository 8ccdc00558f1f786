import Testing

@testable import MobiusDaemon

/// The plugin supervisor's state machine without a process: each transition's state and action, with the time
/// passed in from a fake clock.
@Suite struct PluginSupervisorTests {
    /// Monotonic time that moves only when a test says so.
    private struct FakeClock {
        private(set) var now: UInt64 = 1_000_000_000_000
        mutating func advance(seconds: Double) { now += UInt64(seconds * 1e9) }
    }

    private static let policy = PluginRestartPolicy(DaemonConfig.Restart())

    private func running(_ lifecycle: inout PluginLifecycle, clock: FakeClock) -> Int {
        let attempt = lifecycle.start(now: clock.now)
        let initialized = lifecycle.initialized()
        #expect(initialized)
        return attempt ?? -1
    }

    /// The process of a plugin that was not asked to end exits: the decision that follows.
    private func crash(_ lifecycle: inout PluginLifecycle, clock: FakeClock) -> PluginLifecycle.After? {
        guard case .ended(let ending)? = lifecycle.processExited(status: "exit status 1") else { return nil }
        return lifecycle.ended(restartable: ending.restartable, forgiving: 0, now: clock.now)
    }

    @Test func aStartSettlesWhenInitialized() {
        var lifecycle = PluginLifecycle(policy: Self.policy)
        #expect(lifecycle.status == .stopped)
        let spawned = lifecycle.start(now: 1)
        #expect(spawned == 1)
        #expect(lifecycle.status == .starting)
        #expect(!lifecycle.hasSettled)
        #expect(lifecycle.awaitsInitialize(attempt: 1))
        // A second start while a process is alive spawns nothing.
        let spawned2 = lifecycle.start(now: 2)
        #expect(spawned2 == nil)
        let initialized = lifecycle.initialized()
        #expect(initialized)
        #expect(lifecycle.status == .running)
        #expect(lifecycle.hasSettled)
        #expect(!lifecycle.awaitsInitialize(attempt: 1))
        let initialized2 = lifecycle.initialized()
        #expect(!initialized2)
    }

    @Test func aCrashRestartsAfterABackoffThatDoubles() {
        var clock = FakeClock()
        var lifecycle = PluginLifecycle(policy: Self.policy)
        var delays: [Double] = []
        for _ in 0..<4 {
            _ = running(&lifecycle, clock: clock)
            clock.advance(seconds: 1)
            guard case .restart(let delay, let attempt)? = crash(&lifecycle, clock: clock) else {
                Issue.record("no restart")
                return
            }
            delays.append(delay)
            #expect(lifecycle.status == .backoff)
            #expect(lifecycle.lastProblem == "exited (exit status 1)")
            // The timer of an earlier start does nothing.
            let due = lifecycle.restartDue(attempt: attempt - 1)
            #expect(!due)
            let due2 = lifecycle.restartDue(attempt: attempt)
            #expect(due2)
        }
        #expect(delays == [0.1, 0.2, 0.4, 0.8])
        #expect(lifecycle.restarts == 4)
    }

    @Test func theRestartBudgetSpentMakesItFailed() {
        var clock = FakeClock()
        var lifecycle = PluginLifecycle(policy: Self.policy)
        var last: PluginLifecycle.After?
        for _ in 0..<5 {
            _ = lifecycle.start(now: clock.now)
            clock.advance(seconds: 1)
            last = crash(&lifecycle, clock: clock)
            if case .restart(_, let attempt)? = last {
                let due = lifecycle.restartDue(attempt: attempt)
                #expect(due)
            }
        }
        #expect(last == .fail("5 starts within 60.0 s (restart.burst 5)"))
        #expect(lifecycle.status == .failed)
        #expect(lifecycle.hasSettled)
    }

    @Test func startsOutsideTheWindowDoNotCount() {
        var clock = FakeClock()
        var lifecycle = PluginLifecycle(policy: Self.policy)
        for _ in 0..<10 {
            _ = lifecycle.start(now: clock.now)
            clock.advance(seconds: 61)
            guard case .restart(let delay, let attempt)? = crash(&lifecycle, clock: clock) else {
                Issue.record("gave up on starts a minute apart")
                return
            }
            #expect(delay == 0.1)
            let due = lifecycle.restartDue(attempt: attempt)
            #expect(due)
        }
    }

    @Test func deathsAnUpdateRequestCausedComeOffTheBudget() {
        var clock = FakeClock()
        var lifecycle = PluginLifecycle(policy: Self.policy)
        for _ in 0..<8 {
            _ = lifecycle.start(now: clock.now)
            clock.advance(seconds: 1)
            guard case .ended? = lifecycle.processExited(status: "killed by signal 9") else { return }
            guard case .restart(_, let attempt) = lifecycle.ended(restartable: true, forgiving: 1, now: clock.now)
            else {
                Issue.record("a poison event's deaths made the plugin failed")
                return
            }
            let due = lifecycle.restartDue(attempt: attempt)
            #expect(due)
        }
        #expect(lifecycle.starts.isEmpty)
    }

    @Test func stopWhileRestartingStartsNothing() {
        let clock = FakeClock()
        var lifecycle = PluginLifecycle(policy: Self.policy)
        _ = running(&lifecycle, clock: clock)
        guard case .restart(_, let attempt)? = crash(&lifecycle, clock: clock) else {
            Issue.record("no restart")
            return
        }
        var stopped = false
        guard case .finished(let done) = lifecycle.stop(then: { stopped = true }) else {
            Issue.record("a plugin waiting for its restart has no process to end")
            return
        }
        done()
        #expect(stopped)
        #expect(lifecycle.status == .stopped)
        let due = lifecycle.restartDue(attempt: attempt)
        #expect(!due)
        let spawned = lifecycle.start(now: clock.now)
        #expect(spawned == nil)
        let restart = lifecycle.restartNow()
        #expect(restart == PluginLifecycle.RestartNow.none)
    }

    @Test func stopWhileRunningShutsDownAndEndsAtTheExit() {
        let clock = FakeClock()
        var lifecycle = PluginLifecycle(policy: Self.policy)
        _ = running(&lifecycle, clock: clock)
        var stopped = false
        guard case .shutDown = lifecycle.stop(then: { stopped = true }) else {
            Issue.record("a running plugin is asked to shut down")
            return
        }
        #expect(lifecycle.status == .running)
        // A closed pipe while stopping does not end it early: the shutdown ends it.
        #expect(!lifecycle.endsOnClosedPipe)
        guard case .stopped(let done)? = lifecycle.processExited(status: "exit status 0") else {
            Issue.record("the exit of a stopping plugin is its stop")
            return
        }
        #expect(!stopped)
        done()
        #expect(stopped)
        #expect(lifecycle.status == .stopped)
        let exit = lifecycle.processExited(status: "again")
        #expect(exit == nil)
    }

    @Test func stopWhileStartingClosesStdinAndAFailedPluginStaysFailed() {
        let clock = FakeClock()
        var starting = PluginLifecycle(policy: Self.policy)
        _ = starting.start(now: clock.now)
        guard case .closeStdin = starting.stop(then: {}) else {
            Issue.record("a starting plugin gets its stdin closed")
            return
        }
        #expect(starting.status == .starting)
        #expect(starting.awaitsInitialize(attempt: 1))

        var failed = PluginLifecycle(policy: Self.policy)
        _ = failed.start(now: clock.now)
        _ = failed.end(PluginLifecycle.Ending(code: .pluginExited, message: "refused", restartable: false))
        guard case .ended(let ending)? = failed.processExited(status: "killed") else { return }
        #expect(ending.message == "refused")
        #expect(
            failed.ended(restartable: ending.restartable, forgiving: 0, now: clock.now)
                == .fail("cannot be started as configured"))
        _ = failed.stop(then: {})
        #expect(failed.status == .failed)
    }

    @Test func theFirstReasonToEndAProcessStands() {
        var lifecycle = PluginLifecycle(policy: Self.policy)
        let ends = lifecycle.end(PluginLifecycle.Ending(code: .protocolViolation, message: "no process"))
        #expect(!ends)
        _ = lifecycle.start(now: 1)
        #expect(lifecycle.endsOnClosedPipe)
        let ends2 = lifecycle.end(PluginLifecycle.Ending(code: .protocolViolation, message: "not JSON"))
        #expect(ends2)
        let ends3 = lifecycle.end(PluginLifecycle.Ending(code: .pluginExited, message: "closed its stdout"))
        #expect(!ends3)
        #expect(!lifecycle.endsOnClosedPipe)
        guard case .ended(let ending)? = lifecycle.processExited(status: "killed by signal 9") else { return }
        #expect(ending.code == .protocolViolation)
        #expect(ending.message == "not JSON")
    }

    @Test func restartNowForgetsTheBudget() {
        var clock = FakeClock()
        var lifecycle = PluginLifecycle(policy: Self.policy)
        var last: PluginLifecycle.After?
        for _ in 0..<5 {
            _ = lifecycle.start(now: clock.now)
            clock.advance(seconds: 1)
            last = crash(&lifecycle, clock: clock)
            if case .restart(_, let attempt)? = last { _ = lifecycle.restartDue(attempt: attempt) }
        }
        #expect(lifecycle.status == .failed)
        let restart = lifecycle.restartNow()
        #expect(restart == .start)
        #expect(lifecycle.starts.isEmpty)
        #expect(lifecycle.restarts == 5)
        _ = running(&lifecycle, clock: clock)
        // A running plugin is ended on request; its exit is no death of an update request and restarts it at once.
        let restart2 = lifecycle.restartNow()
        #expect(restart2 == .terminate)
        #expect(lifecycle.starts.isEmpty)
        guard case .ended(let ending)? = lifecycle.processExited(status: "killed by signal 15") else { return }
        #expect(ending.requested)
        #expect(ending.message == "was restarted on request")
        #expect(
            lifecycle.ended(restartable: true, forgiving: 0, now: clock.now) == .restart(afterSeconds: 0.1, attempt: 7))
    }

    @Test func aFailedSpawnBacksOffLikeAnExit() {
        let clock = FakeClock()
        var lifecycle = PluginLifecycle(policy: Self.policy)
        _ = lifecycle.start(now: clock.now)
        #expect(
            lifecycle.spawnFailed("could not be started: ENOENT", now: clock.now)
                == .restart(afterSeconds: 0.1, attempt: 2))
        #expect(lifecycle.lastProblem == "could not be started: ENOENT")
        #expect(lifecycle.hasSettled)
        #expect(lifecycle.status == .backoff)
    }
}

/// The restart policy as a pure function of the start history and the time.
@Suite struct PluginRestartPolicyTests {
    @Test func delaysDoubleUpToMaxDelay() {
        var restart = DaemonConfig.Restart()
        restart.initialDelay = 1
        restart.maxDelay = 5
        restart.burst = 100
        let policy = PluginRestartPolicy(restart)
        let now: UInt64 = 10_000_000_000
        let delays = (1...5).map { count in
            policy.decide(starts: Array(repeating: now, count: count), now: now)
        }
        #expect(delays == [1, 2, 4, 5, 5].map { .restart(afterSeconds: $0) })
        #expect(policy.decide(starts: [], now: now) == .restart(afterSeconds: 1))
    }

    @Test func burstStartsWithinTheIntervalGiveUp() {
        var restart = DaemonConfig.Restart()
        restart.burst = 3
        restart.interval = 10
        let policy = PluginRestartPolicy(restart)
        let second: UInt64 = 1_000_000_000
        let starts = [100 * second, 105 * second, 109 * second]
        #expect(policy.decide(starts: starts, now: 110 * second) == .giveUp("3 starts within 10.0 s (restart.burst 3)"))
        // A second later the first start has left the window.
        #expect(policy.decide(starts: starts, now: 111 * second) == .restart(afterSeconds: 0.2))
        #expect(policy.recent(starts, now: 111 * second) == [105 * second, 109 * second])
    }
}
