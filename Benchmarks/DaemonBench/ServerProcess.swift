import MobiusSystem
import MobiusTestSupport

/// A server the benchmark started: spawned with stdout discarded and stderr in a log file, ready once its socket
/// accepts a connection, stopped with SIGTERM.
struct ServerProcess {
    let kind: ServerKind
    let process: ChildProcess
    let socketPath: String
    let logPath: String
    /// Spawn to first accepted connection, polled every 1 ms.
    let readyNanoseconds: UInt64

    var pid: Int32 { process.processID }

    /// Spawns `arguments[0]` (looked up on PATH when it has no slash) and waits until `socketPath` accepts.
    static func start(
        kind: ServerKind, arguments: [String], socketPath: String, logPath: String, timeoutSeconds: Double = 10
    ) throws(BenchError) -> ServerProcess {
        let start = SystemProcess.monotonicNanoseconds()
        let process: ChildProcess
        do {
            process = try ChildProcess.spawn(arguments, standardError: logPath)
        } catch {
            throw BenchError("cannot start \(arguments[0]): \(error.reason)")
        }
        let deadline = start + UInt64(timeoutSeconds * 1e9)
        while true {
            if let stream = try? UnixStream.connect(path: socketPath) {
                let ready = SystemProcess.monotonicNanoseconds() - start
                stream.close()
                return ServerProcess(
                    kind: kind, process: process, socketPath: socketPath, logPath: logPath, readyNanoseconds: ready)
            }
            if let ended = try? process.termination() {
                throw BenchError(
                    "\(arguments[0]) ended (\(ended)) before listening; its stderr:\n\(Self.tail(of: logPath))")
            }
            if SystemProcess.monotonicNanoseconds() > deadline {
                try? process.send(.kill)
                _ = try? process.waitForExit()
                throw BenchError("\(arguments[0]) did not accept on \(socketPath) within \(timeoutSeconds) s")
            }
            try? SystemClock.sleep(nanoseconds: 1_000_000)
        }
    }

    /// The last lines of a small text file (a server's stderr log).
    static func tail(of path: String, lines: Int = 10) -> String {
        guard let text = try? FileSystem.read(path) else { return "(no \(path))" }
        let kept = text.split(separator: 0x0A, omittingEmptySubsequences: false).suffix(lines + 1)
        return kept.map { String(decoding: $0, as: UTF8.self) }.joined(separator: "\n")
    }

    /// CPU time, context switches and RSS of the server so far.
    func usage() throws(BenchError) -> ProcessUsage {
        do {
            return try ProcessUsage.sample(processID: pid)
        } catch {
            throw BenchError("\(kind) (pid \(pid)) usage: \(error)")
        }
    }

    /// SIGTERM, then waits for the exit (SIGKILL after 5 s).
    func stop() {
        try? process.send(.terminate)
        for _ in 0..<5000 {
            if (try? process.termination()) != nil { return }
            try? SystemClock.sleep(nanoseconds: 1_000_000)
        }
        try? process.send(.kill)
        _ = try? process.waitForExit()
    }
}
