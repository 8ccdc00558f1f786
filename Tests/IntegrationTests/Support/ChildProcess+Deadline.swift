import MobiusSystem
import MobiusTestSupport

extension ChildProcess {
    /// Waits up to `timeout` (times `TestTime.scale`) for the child to end and reaps it; `nil` while it still runs
    /// then, or when it cannot be waited for (already reaped). Polls, so a hung child cannot hang the test.
    func termination(within timeout: Duration) -> Termination? {
        let deadline = ContinuousClock.now + TestTime.scaled(timeout)
        while true {
            if let ended = try? termination() { return ended }
            if ContinuousClock.now >= deadline { return nil }
            try? SystemClock.sleep(nanoseconds: 2_000_000)
        }
    }
}
