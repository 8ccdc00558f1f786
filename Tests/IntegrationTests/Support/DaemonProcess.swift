import Foundation
import Glibc

/// The real `mobiusd` binary running in a scratch directory, listening on a real Unix socket.
///
/// Killed (SIGKILL) when released if a test did not stop it, so a failing test never leaves a daemon behind.
final class DaemonProcess {
    let scratch: DaemonScratch
    let socketPath: String
    let pid: pid_t
    private let name: String
    private(set) var exit: DaemonExit?

    /// Starts `mobiusd arguments…` and, when `waitForSocket`, waits until `socketPath` accepts connections.
    ///
    /// Throws with the daemon's stderr if it exits first or the socket does not come up within `startTimeout`.
    init(
        scratch: DaemonScratch, arguments: [String], socketPath: String, name: String = "mobiusd",
        workingDirectory: String? = nil, waitForSocket: Bool = true, startTimeout: Duration = .seconds(15)
    ) throws {
        self.scratch = scratch
        self.socketPath = socketPath
        self.name = name
        pid = try DaemonSpawn.spawn(
            DaemonSpawn.mobiusdPath, arguments, stdoutPath: scratch.file("\(name).stdout"),
            stderrPath: scratch.file("\(name).stderr"), workingDirectory: workingDirectory)
        if waitForSocket { try waitUntilAccepting(timeout: startTimeout) }
    }

    /// The common case: a fresh scratch directory, `--socket <scratch>/x.sock`, and `config` (JSON text) as
    /// `--config <scratch>/mobiusd.json` when given.
    static func start(config: String? = nil, extraArguments: [String] = []) throws -> DaemonProcess {
        let scratch = DaemonScratch()
        var arguments = ["--socket", scratch.file("x.sock")]
        if let config {
            arguments += ["--config", scratch.write("mobiusd.json", config)]
        }
        return try DaemonProcess(
            scratch: scratch, arguments: arguments + extraArguments, socketPath: scratch.file("x.sock"))
    }

    /// Everything the daemon has written to stdout so far.
    var standardOutput: String { scratch.read("\(name).stdout") }

    /// Everything the daemon has written to stderr so far.
    var standardError: String { scratch.read("\(name).stderr") }

    /// Whether the process is still running (reaps it if it has exited).
    var isRunning: Bool {
        if exit != nil { return false }
        exit = DaemonSpawn.reap(pid)
        return exit == nil
    }

    private func waitUntilAccepting(timeout: Duration) throws {
        let deadline = ContinuousClock.now + timeout
        while true {
            if let probe = try? DaemonLineClient(path: socketPath) {
                // Half-close and wait for the daemon's EOF: by then it has closed and uncounted the probe, so
                // tests see exact `connections` numbers and limits.
                probe.shutdownWrite()
                _ = try? probe.readUntilEndOfFile(timeout: .seconds(5))
                probe.close()
                return
            }
            if !isRunning {
                throw DaemonTestError("mobiusd exited before listening (\(exit!)); stderr:\n\(standardError)")
            }
            if ContinuousClock.now >= deadline {
                throw DaemonTestError(
                    "mobiusd did not accept on \(socketPath) within \(timeout); stderr:\n\(standardError)")
            }
            usleep(2_000)
        }
    }

    /// A new client connection to the daemon's socket.
    func connect() throws -> DaemonLineClient {
        try DaemonLineClient(path: socketPath)
    }

    /// Sends `signal` to the daemon.
    func send(signal: Int32) {
        if exit == nil { Glibc.kill(pid, signal) }
    }

    /// Waits for the daemon to exit on its own; throws after `timeout`.
    @discardableResult
    func waitForExit(timeout: Duration = .seconds(15)) throws -> DaemonExit {
        if let exit { return exit }
        guard let ended = DaemonSpawn.wait(pid, timeout: timeout) else {
            throw DaemonTestError("mobiusd (pid \(pid)) still running after \(timeout); stderr:\n\(standardError)")
        }
        exit = ended
        return ended
    }

    /// SIGTERM, then waits for the exit; throws (and kills it) if it does not stop within `timeout`.
    @discardableResult
    func terminate(timeout: Duration = .seconds(15)) throws -> DaemonExit {
        send(signal: SIGTERM)
        do {
            return try waitForExit(timeout: timeout)
        } catch {
            send(signal: SIGKILL)
            _ = try? waitForExit(timeout: .seconds(5))
            throw error
        }
    }

    /// The daemon's resident set size in bytes (VmRSS in /proc/<pid>/status).
    func residentBytes() throws -> Int {
        guard let text = try? String(contentsOfFile: "/proc/\(pid)/status", encoding: .utf8) else {
            throw DaemonTestError("cannot read /proc/\(pid)/status")
        }
        for line in text.split(separator: "\n") where line.hasPrefix("VmRSS:") {
            let fields = line.split(separator: " ", omittingEmptySubsequences: true)
            if fields.count >= 2, let kilobytes = Int(fields[1].trimmingCharacters(in: .whitespaces)) {
                return kilobytes * 1024
            }
        }
        throw DaemonTestError("no VmRSS in /proc/\(pid)/status")
    }

    deinit {
        if exit == nil {
            Glibc.kill(pid, SIGKILL)
            _ = DaemonSpawn.wait(pid, timeout: .seconds(5))
        }
    }
}
