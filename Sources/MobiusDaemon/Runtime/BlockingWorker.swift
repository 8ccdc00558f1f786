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
    /// The thread's nice value, when it is to yield the CPU to the daemon's others.
    private let nice: Int32?

    /// - Parameters:
    ///   - stackSize: the thread's stack (NSS modules need a normal one; JSON parsing a few hundred KiB).
    ///   - nice: a nice value (1 to 19) for work that may run long and must not hold up the reactor thread.
    init(name: String, stackSize: Int = 1 << 20, nice: Int32? = nil) {
        self.name = name
        self.stackSize = stackSize
        self.nice = nice
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
        // Without it the work runs at the daemon's priority: slower for the others under load, never wrong.
        if let nice { try? SystemThread.setCurrentNice(nice) }
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
