import MobiusSystem
import MobiusTestSupport

/// One mobiusd started as systemd would start it for the benchmark: its own NOTIFY_SOCKET listener, optional
/// WATCHDOG_USEC, and the time from `posix_spawn` to its READY=1.
struct SystemdDaemon {
    let child: ChildProcess
    let notify: DatagramSocket
    /// Nanoseconds from just before `posix_spawn` to the READY=1 datagram.
    let readyNanoseconds: UInt64

    /// Starts `mobiusd` in `directory` and waits (up to 10 s) for READY=1.
    static func start(
        mobiusd: String, directory: TemporaryDirectory, name: String, arguments: [String],
        watchdogMicroseconds: UInt64?
    ) throws -> SystemdDaemon {
        let notify = try DatagramSocket(binding: directory.file("\(name).notify"))
        var environment = SystemProcess.environmentVariables()
        for key in ["NOTIFY_SOCKET", "WATCHDOG_USEC", "WATCHDOG_PID", "LISTEN_FDS", "LISTEN_PID", "JOURNAL_STREAM"] {
            environment[key] = nil
        }
        environment["NOTIFY_SOCKET"] = notify.path
        if let watchdogMicroseconds { environment["WATCHDOG_USEC"] = String(watchdogMicroseconds) }
        let started = SystemProcess.monotonicNanoseconds()
        let child = try ChildProcess.spawn(
            [mobiusd, "--socket", directory.file("\(name).sock")] + arguments,
            standardError: directory.file("\(name).stderr"), environment: environment)
        while true {
            let now = SystemProcess.monotonicNanoseconds()
            guard now - started < 10_000_000_000,
                let message = try notify.receive(timeoutNanoseconds: 10_000_000_000 - (now - started))
            else {
                try? child.send(.kill)
                _ = try? child.waitForExit()
                throw SystemdBenchError("\(name): no READY=1 within 10 s")
            }
            if String(decoding: message, as: UTF8.self).split(separator: "\n").contains("READY=1") {
                let ready = SystemProcess.monotonicNanoseconds() - started
                return SystemdDaemon(child: child, notify: notify, readyNanoseconds: ready)
            }
        }
    }

    /// CPU time and voluntary context switches (wake-ups) of all its threads.
    func usage() throws -> ProcessUsage {
        try ProcessUsage.sample(processID: child.processID)
    }

    /// How many WATCHDOG=1 pings are queued on its notify socket (taken).
    func takePings() throws -> Int {
        var pings = 0
        while let message = try notify.receive(timeoutNanoseconds: 0) {
            if String(decoding: message, as: UTF8.self).contains("WATCHDOG=1") { pings += 1 }
        }
        return pings
    }

    /// SIGTERM and wait.
    func stop() {
        try? child.send(.terminate)
        _ = try? child.waitForExit()
        notify.close()
    }
}

/// A benchmark that could not run, with the reason.
struct SystemdBenchError: Error, CustomStringConvertible {
    let description: String

    init(_ description: String) {
        self.description = description
    }
}
