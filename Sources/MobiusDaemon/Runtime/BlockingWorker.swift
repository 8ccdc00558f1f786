import MobiusSystem

/// A thread for calls that may block for long: NSS lookups (group membership can go to LDAP) and reads of /proc.
/// The reactor hands it jobs and gets results back through its waker, so the reactor thread never waits on them.
/// The thread starts with the first job and then sleeps until the next one.
final class BlockingWorker: @unchecked Sendable {
    // @unchecked: `jobs` and `started` are touched only while holding `condition`'s mutex.
    private let condition = ThreadCondition()
    private var jobs: [@Sendable () -> Void] = []
    private var started = false
    private let name: String

    init(name: String) {
        self.name = name
    }

    /// Runs `job` on the worker thread, after the jobs submitted before it.
    func submit(_ job: @escaping @Sendable () -> Void) {
        let start = condition.withLock { () -> Bool in
            jobs.append(job)
            defer { started = true }
            return !started
        }
        if start {
            do {
                // NSS modules run here; give them a normal-sized stack.
                try SystemThread.spawn(name: name, stackSize: 1 << 20) { [self] in run() }
            } catch {
                // No thread: run jobs inline rather than never (the caller then waits on this one call).
                condition.withLock { started = false }
                for job in condition.withLock({ () -> [@Sendable () -> Void] in
                    defer { jobs.removeAll() }
                    return jobs
                }) { job() }
                return
            }
        }
        condition.broadcast()
    }

    private func run() {
        while true {
            let batch = condition.withLock { () -> [@Sendable () -> Void] in
                while jobs.isEmpty { condition.wait() }
                defer { jobs.removeAll(keepingCapacity: true) }
                return jobs
            }
            for job in batch { job() }
        }
    }
}
