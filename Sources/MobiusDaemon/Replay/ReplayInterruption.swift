import MobiusSystem
import Synchronization

/// `replay` interrupted (Ctrl-C: SIGINT, SIGTERM, or SIGHUP when its terminal goes): the update plugins are shut down
/// as the daemon shuts them down and `replay` exits with 128 plus the signal's number. Each plugin runs in a process
/// group of its own, which a terminal's Ctrl-C does not reach, so without this a plugin busy in an update would
/// outlive `replay`. Nothing is written to the state directory, interrupted or not.
final class ReplayInterruption: Sendable {
    /// Shuts one side's plugin down and calls `ended` once it has ended.
    typealias Stop = @Sendable (_ ended: @escaping @Sendable () -> Void) -> Void

    private let stops = Mutex<[Stop]>([])

    /// Blocks the signals for this thread and those it starts, and waits for them on a thread of its own.
    ///
    /// - Throws: `ReplayFailure` when no signalfd, epoll or thread can be had.
    init(program: String) throws(ReplayFailure) {
        do {
            let signals = try SignalFD([.interrupt, .terminate, .hangUp])
            let epoll = try Epoll(capacity: 1)
            try epoll.add(signals.fd, events: .readable, token: 0)
            _ = try SystemThread.spawn(name: "mobiusd-signals", stackSize: 256 << 10) { [self] in
                while true {
                    try? epoll.wait(timeoutMilliseconds: -1) { _, _ in }
                    guard let signal = signals.take().first else { continue }
                    MobiusDaemon.printError("\(program): interrupted (signal \(signal.rawValue)); ending the plugins")
                    stopAll()
                    SystemProcess.exit(128 + signal.rawValue)
                }
            }
        } catch {
            throw ReplayFailure("cannot watch for Ctrl-C: \(error)")
        }
    }

    /// Has `stop` called when a signal comes.
    func add(_ stop: @escaping Stop) {
        stops.withLock { $0.append(stop) }
    }

    /// Stops every side's plugin and waits for them to end.
    private func stopAll() {
        let all = stops.withLock { $0 }
        let condition = ThreadCondition()
        let remaining = Mutex(all.count)
        for stop in all {
            stop {
                // Under the condition's lock, so the count cannot change between the waiter's check and its wait.
                condition.withLock { remaining.withLock { $0 -= 1 } }
                condition.broadcast()
            }
        }
        condition.withLock {
            while remaining.withLock({ $0 }) > 0 { _ = condition.wait() }
        }
    }
}
