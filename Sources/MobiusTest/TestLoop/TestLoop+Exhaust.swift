import MobiusCore

extension TestLoop {
    /// Applies events from the effect handlers until the loop is idle: the inbox is empty, no effect routed to an
    /// `EffectHandler`, an async route or a queue is still running, and no event has arrived for `quietPeriod`.
    /// Returns at once when no effect was dispatched since the loop was last idle.
    ///
    /// Fails if the handlers are still sending events when `timeout` passes, naming the latest event and the
    /// effects dispatched since the loop was last idle. Blocks the calling thread; in async code use the async
    /// overload.
    public func exhaust(timeout: Duration = .seconds(1), file: StaticString = #file, line: UInt = #line) {
        let start = ContinuousClock.now
        while let duration = nextExhaustWait(startedAt: start, timeout: timeout, file, line) {
            inbox.waitForArrival(upTo: duration)
        }
    }

    /// Like the synchronous `exhaust`, but suspends instead of blocking while the handlers work, so handlers
    /// running on Swift concurrency's threads are not starved. Returns early if the task is cancelled.
    nonisolated(nonsending)
        public func exhaust(timeout: Duration = .seconds(1), file: StaticString = #file, line: UInt = #line) async
    {
        let start = ContinuousClock.now
        while let duration = nextExhaustWait(startedAt: start, timeout: timeout, file, line) {
            do {
                try await Task.sleep(for: min(duration, .milliseconds(2)))
            } catch {
                return
            }
        }
    }

    /// Waits for the next event from the effect handlers (if none has arrived yet) and asserts that it is
    /// `expected`, consuming it. Fails if it differs, or if no event arrives within `timeout`.
    public func receive(
        _ expected: Event, timeout: Duration = .seconds(1), file: StaticString = #file, line: UInt = #line
    ) where Event: Equatable {
        let deadline = ContinuousClock.now + timeout
        applyArrivedEvents()
        while receivedEvents.isEmpty, ContinuousClock.now < deadline {
            inbox.waitForArrival(upTo: deadline - ContinuousClock.now)
            applyArrivedEvents()
        }
        guard !receivedEvents.isEmpty else {
            failFunction(
                "TestLoop.receive failed: no event arrived within \(timeout); expected:\n\(LineDiff.render(expected))",
                file, line)
            return
        }
        let actual = receivedEvents.removeFirst()
        if actual != expected {
            let diff = LineDiff(expected: expected, actual: actual).rendered
            failFunction("TestLoop.receive failed: event differs\n(- expected, + actual)\n\(diff)", file, line)
        }
    }

    /// One round of `exhaust`: how long to wait for more events, or `nil` when the loop is idle or the time is up
    /// (the failure reported).
    private func nextExhaustWait(
        startedAt start: ContinuousClock.Instant, timeout: Duration, _ file: StaticString, _ line: UInt
    ) -> Duration? {
        switch exhaustStep(startedAt: start, timeout: timeout) {
        case .idle:
            return nil
        case .timedOut(let message):
            failFunction(message, file, line)
            return nil
        case .waiting(let duration):
            return duration
        }
    }

    enum ExhaustStep {
        case idle
        case timedOut(String)
        case waiting(Duration)
    }

    /// One round of exhausting: apply what has arrived, then decide whether the loop is idle, out of time, or
    /// should wait (and for how long at most) for more events.
    func exhaustStep(startedAt start: ContinuousClock.Instant, timeout: Duration) -> ExhaustStep {
        let deadline = start + timeout
        let drained = applyArrivedEvents(until: deadline) && inbox.runningEffects.isEmpty
        let now = ContinuousClock.now
        if drained, isSettled {
            return .idle
        }
        let quietUntil = max(start, inbox.lastArrival ?? start) + quietPeriod
        if drained, now >= quietUntil {
            isSettled = true
            effectsSinceSettled.removeAll()
            return .idle
        }
        if now >= deadline {
            return .timedOut(timeoutMessage(timeout))
        }
        if !inbox.isEmpty { return .waiting(.zero) }
        return .waiting((drained ? min(quietUntil, deadline) : deadline) - now)
    }

    private func timeoutMessage(_ timeout: Duration) -> String {
        let latest = receivedEvents.last.map { String(reflecting: $0) } ?? "an event already asserted"
        let recent = effectsSinceSettled.suffix(10).joined(separator: ", ")
        let omitted = effectsSinceSettled.count > 10 ? " (last 10 of \(effectsSinceSettled.count))" : ""
        let running = inbox.runningEffects
        let stillRunning = running.isEmpty ? "" : "\nEffects still running: \(running.joined(separator: ", "))"
        return """
            TestLoop.exhaust timed out after \(timeout): effect handlers were still busy \
            (latest event: \(latest)).
            Effects dispatched since the loop was last idle\(omitted): \(recent)\(stillRunning)
            """
    }
}
