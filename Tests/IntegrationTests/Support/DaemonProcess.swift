import MobiusSystem
import MobiusTestSupport
import Synchronization

/// The real `mobiusd` binary (or another program built on the daemon library) running in a scratch directory,
/// listening on a real Unix socket. It may be started through a launcher that changes its limits or user and then
/// execs it (`prlimit`, `setpriv`), so the pid stays the daemon's.
///
/// Killed (SIGKILL) when released if a test did not stop it, so a failing test never leaves a daemon behind.
final class DaemonProcess {
    let scratch: DaemonScratch
    let socketPath: String
    private let child: ChildProcess
    private let name: String
    /// The launcher and the program, for messages.
    private let command: String
    private(set) var exit: DaemonExit?

    /// The daemon's pid (the launcher's, which became the daemon when it exec'd it).
    var pid: Int32 { child.processID }

    /// Starts `launcher… program arguments…` and, when `waitForSocket`, waits until `socketPath` accepts
    /// connections.
    ///
    /// Throws with the daemon's stderr if it exits first or the socket does not come up within `startTimeout` (times
    /// `TestTime.scale`).
    /// - Parameters:
    ///   - program: the daemon: the built `mobiusd` unless a fixture app is named.
    ///   - launcher: a command that execs the rest of the command line (`["prlimit", "--nofile=64:64", "--"]`).
    ///   - environment: the complete environment, or `nil` to inherit the test's.
    init(
        scratch: DaemonScratch, arguments: [String], socketPath: String, name: String = "mobiusd",
        program: String = DaemonSpawn.mobiusdPath, launcher: [String] = [], environment: [String: String]? = nil,
        workingDirectory: String? = nil, waitForSocket: Bool = true, startTimeout: Duration = .seconds(15)
    ) throws {
        self.scratch = scratch
        self.socketPath = socketPath
        self.name = name
        let commandLine = launcher + [program]
        command = commandLine.joined(separator: " ")
        child = try DaemonSpawn.start(
            commandLine[0], Array(commandLine.dropFirst()) + arguments, stdoutPath: scratch.file("\(name).stdout"),
            stderrPath: scratch.file("\(name).stderr"), workingDirectory: workingDirectory,
            environment: Self.privateState(environment, scratch: scratch), inheritEnvironment: environment == nil)
        if waitForSocket { try waitUntilAccepting(timeout: startTimeout) }
    }

    /// The environment with a state home of this daemon's own (`XDG_STATE_HOME` in a fresh directory of the
    /// scratch), unless the test set one: daemons never share state and never write into the real home. Tests
    /// about state pass `--state-dir`, which takes precedence.
    private static func privateState(_ environment: [String: String]?, scratch: DaemonScratch) -> [String: String] {
        var environment = environment ?? [:]
        if environment["XDG_STATE_HOME"] == nil {
            let home = scratch.file("state-home-\(nextStateHome.add(1, ordering: .relaxed).newValue)")
            environment["XDG_STATE_HOME"] = home
        }
        return environment
    }

    private static let nextStateHome = Atomic<Int>(0)

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
        exit = try? child.termination()
        return exit == nil
    }

    private func waitUntilAccepting(timeout: Duration) throws {
        let deadline = ContinuousClock.now + TestTime.scaled(timeout)
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
                throw DaemonTestError("\(command) exited before listening (\(exit!)); stderr:\n\(standardError)")
            }
            if ContinuousClock.now >= deadline {
                throw DaemonTestError(
                    "\(command) did not accept on \(socketPath) within \(TestTime.scaled(timeout)); stderr:\n\(standardError)"
                )
            }
            try? SystemClock.sleep(nanoseconds: 2_000_000)
        }
    }

    /// A new client connection to the daemon's socket.
    func connect() throws -> DaemonLineClient {
        try DaemonLineClient(path: socketPath)
    }

    /// Sends `signal` (SIGHUP, SIGINT, SIGKILL or SIGTERM) to the daemon.
    func send(signal: Int32) {
        guard let known = ChildProcess.Signal(rawValue: signal) else {
            preconditionFailure("DaemonProcess sends SIGHUP, SIGINT, SIGKILL or SIGTERM, not signal \(signal)")
        }
        send(known)
    }

    private func send(_ signal: ChildProcess.Signal) {
        if exit == nil { try? child.send(signal) }
    }

    /// Waits for the daemon to exit on its own; throws after `timeout`.
    @discardableResult
    func waitForExit(timeout: Duration = .seconds(15)) throws -> DaemonExit {
        if let exit { return exit }
        guard let ended = child.termination(within: timeout) else {
            throw DaemonTestError(
                "\(command) (pid \(pid)) still running after \(TestTime.scaled(timeout)); stderr:\n\(standardError)")
        }
        exit = ended
        return ended
    }

    /// SIGTERM, then waits for the exit; throws (and kills it) if it does not stop within `timeout`.
    @discardableResult
    func terminate(timeout: Duration = .seconds(15)) throws -> DaemonExit {
        send(.terminate)
        do {
            return try waitForExit(timeout: timeout)
        } catch {
            send(.kill)
            _ = try? waitForExit(timeout: .seconds(5))
            throw error
        }
    }

    /// The daemon's resident set size in bytes (VmRSS).
    func residentBytes() throws -> Int {
        do throws(SystemError) {
            return Int(try ProcessUsage.sample(processID: pid).residentBytes)
        } catch {
            throw DaemonTestError("cannot read the resident size of pid \(pid): \(error.reason)")
        }
    }

    deinit {
        if exit == nil {
            try? child.send(.kill)
            _ = child.termination(within: .seconds(5))
        }
    }
}
