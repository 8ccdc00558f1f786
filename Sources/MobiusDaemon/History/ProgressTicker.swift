import MobiusSystem

/// Calls `report` on a thread of its own at `ProgressPace`'s times (after a second, then every few seconds) until it
/// is stopped: for long work that holds the thread it runs on, such as recovery on the reactor thread before it
/// serves, so a report comes even while one event takes long in the app's update.
final class ProgressTicker: @unchecked Sendable {
    // @unchecked: `stopped` is touched only while holding `condition`'s mutex.
    private let condition = ThreadCondition()
    private var stopped = false
    private var thread: SystemThread.Handle?

    /// Starts ticking; without a thread (none could be started) it reports nothing.
    ///
    /// - Parameter report: gets the time since the start, in nanoseconds.
    init(name: String, report: @escaping @Sendable (_ elapsed: UInt64) -> Void) {
        let started = SystemProcess.monotonicNanoseconds()
        thread = try? SystemThread.spawn(name: name, stackSize: 256 << 10, joinable: true) { [self] in
            var due = ProgressPace.firstReportNanoseconds
            while true {
                let stop = condition.withLock { () -> Bool in
                    while !stopped {
                        let elapsed = SystemProcess.monotonicNanoseconds() - started
                        guard elapsed < due else { return false }
                        condition.wait(timeoutNanoseconds: due - elapsed)
                    }
                    return true
                }
                if stop { return }
                report(SystemProcess.monotonicNanoseconds() - started)
                due += ProgressPace.intervalNanoseconds
            }
        }
    }

    /// Stops the reports and waits for a report under way to end.
    func stop() {
        condition.withLock { stopped = true }
        condition.broadcast()
        thread?.join()
        thread = nil
    }
}
