import MobiusSystem

/// A joinable thread running one closure: the load generator's writer and reader threads.
struct BenchThread {
    private let handle: SystemThread.Handle

    /// Starts `body` on a new thread named `name` (what `perf` and `top -H` show).
    init(name: String, _ body: @escaping @Sendable () -> Void) throws(BenchError) {
        handle = try BenchError.checking { () throws(SystemError) in
            try SystemThread.spawn(name: name, stackSize: 512 * 1024, joinable: true, body)
        }
    }

    /// Waits for the closure to return; everything it wrote is visible afterwards.
    func join() {
        handle.join()
    }
}
