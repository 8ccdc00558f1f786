import MobiusSystem

/// A thread the reactor hands jobs to and gets results back from through its waker, so the reactor thread never
/// waits on them: calls that may block for long (reads of /proc, a config file that may be a FIFO, user and group
/// names that go through NSS) on one each, interpreting big batches of request lines on another. The thread starts
/// with the first job and then sleeps until the next one.
final class BlockingWorker: @unchecked Sendable {
    // @unchecked: `jobs` and `started` are touched only while holding `condition`'s mutex.
    private let condition = ThreadCondition()
    private var jobs: [@Sendable () -> Void] = []
    private var started = false
    private let name: String
    private let stackSize: Int

    /// - Parameter stackSize: the thread's stack (NSS modules need a normal one; JSON parsing a few hundred KiB).
    init(name: String, stackSize: Int = 1 << 20) {
        self.name = name
        self.stackSize = stackSize
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
                try SystemThread.spawn(name: name, stackSize: stackSize) { [self] in run() }
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
