import Foundation
import MobiusSystem
import MobiusTestSupport
import Testing

/// The built binaries, found next to the test bundle (`.build/<triple>/debug/`). `MOBIUSCTL_TEST_MOBIUSD` may
/// name another mobiusd to test against (e.g. one built from a known-good commit).
enum CtlBinaries {
    static var mobiusd: String {
        SystemProcess.environment("MOBIUSCTL_TEST_MOBIUSD") ?? DaemonSpawn.fixture("mobiusd")
    }
    static var mobiusctl: String { DaemonSpawn.fixture("mobiusctl") }
}

/// A child process with stdout and stderr in files, started through `DaemonSpawn` (empty signal mask and default
/// dispositions, so SIGINT reaches mobiusctl even when the test thread blocks it; no inherited descriptors beyond
/// 0-2) with exactly the environment given (so the runner's own MOBIUSD_SOCKET cannot leak in).
final class CtlChild {
    private let child: ChildProcess
    let stdoutPath: String
    let stderrPath: String
    private(set) var exit: DaemonExit?

    /// The child's pid.
    var pid: Int32 { child.processID }

    init(_ program: String, _ arguments: [String], environment: [String: String], outputPrefix: String) throws {
        stdoutPath = outputPrefix + ".out"
        stderrPath = outputPrefix + ".err"
        child = try DaemonSpawn.start(
            program, arguments, stdoutPath: stdoutPath, stderrPath: stderrPath, environment: environment,
            inheritEnvironment: false)
    }

    /// What the child wrote to stdout so far.
    var stdout: String { CtlChild.contents(stdoutPath) }
    /// What the child wrote to stderr so far.
    var stderr: String { CtlChild.contents(stderrPath) }

    /// Sends `signal` unless the child has been reaped.
    func send(_ signal: ChildProcess.Signal) {
        if exit == nil { try? child.send(signal) }
    }

    /// Sends `signal` (SIGHUP, SIGINT, SIGKILL or SIGTERM) unless the child has been reaped.
    func send(_ signal: Int32) {
        guard let known = ChildProcess.Signal(rawValue: signal) else {
            preconditionFailure("CtlChild sends SIGHUP, SIGINT, SIGKILL or SIGTERM, not signal \(signal)")
        }
        send(known)
    }

    /// Waits for the child to end; kills it and throws if it runs past `timeout`.
    @discardableResult
    func wait(timeout: Duration = .seconds(10)) throws -> DaemonExit {
        if let exit { return exit }
        if let ended = child.termination(within: timeout) {
            exit = ended
            return ended
        }
        try? child.send(.kill)
        exit = (try? child.waitForExit()) ?? .signaled(ChildProcess.Signal.kill.rawValue)
        throw DaemonTestError("pid \(pid) still running after \(timeout); stdout: \(stdout) stderr: \(stderr)")
    }

    /// Waits until stdout (or stderr) holds `text`; throws after `timeout`, quoting what it holds.
    func waitForOutput(_ text: String, onStderr: Bool = false, timeout: Duration = .seconds(10)) throws {
        let deadline = ContinuousClock.now + timeout
        while !(onStderr ? stderr : stdout).contains(text) {
            guard ContinuousClock.now < deadline else {
                throw DaemonTestError("never saw \(text); stdout: \(stdout) stderr: \(stderr)")
            }
            try? SystemClock.sleep(nanoseconds: 5_000_000)
        }
    }

    deinit {
        if exit == nil {
            try? child.send(.kill)
            _ = try? child.waitForExit()
        }
    }

    private static func contents(_ path: String) -> String {
        guard let bytes = try? FileSystem.read(path) else { return "" }
        return String(decoding: bytes, as: UTF8.self)
    }
}

/// A finished mobiusctl run.
struct CtlRun: CustomStringConvertible {
    let exit: DaemonExit
    let stdout: String
    let stderr: String

    /// stdout split into lines (without the final empty one).
    var lines: [String] { stdout.split(separator: "\n", omittingEmptySubsequences: false).map(String.init).dropLast() }

    var description: String { "\(exit); stdout: \(stdout.debugDescription); stderr: \(stderr.debugDescription)" }
}

/// A private temp directory with an optional mobiusd in it, and a way to run mobiusctl against it.
///
/// The environment points XDG_RUNTIME_DIR, XDG_STATE_HOME and HOME into the directory, so nothing touches the
/// user's real sockets or state.
final class CtlSandbox {
    /// Removed (with everything in it) when the sandbox is released, after the daemon has been stopped.
    private let scratch = DaemonScratch()
    let directory: String
    /// The socket given to mobiusd with `--socket`.
    let socketPath: String
    /// The environment of every child (daemon and mobiusctl).
    let environment: [String: String]
    private(set) var daemon: CtlChild?
    private var runs = 0

    init() {
        directory = scratch.path
        socketPath = directory + "/ctl.sock"
        let runtime = directory + "/run"
        try? FileSystem.makeDirectories(runtime, mode: 0o700)
        environment = [
            "PATH": ProcessInfo.processInfo.environment["PATH"] ?? "/usr/bin:/bin",
            "HOME": directory, "XDG_RUNTIME_DIR": runtime, "XDG_STATE_HOME": directory + "/state",
        ]
    }

    /// Starts mobiusd with `arguments` (and `--socket socketPath` unless `defaultSocket`) and waits for its banner
    /// and socket.
    @discardableResult
    func startDaemon(defaultSocket: Bool = false, arguments extra: [String] = []) throws -> CtlChild {
        let arguments = extra + (defaultSocket ? [] : ["--socket", socketPath])
        let child = try CtlChild(
            CtlBinaries.mobiusd, arguments, environment: environment, outputPrefix: directory + "/mobiusd")
        daemon = child
        try child.waitForOutput("listening on")
        return child
    }

    /// Stops mobiusd with SIGTERM and returns how it ended.
    @discardableResult
    func stopDaemon() throws -> DaemonExit? {
        guard let daemon else { return nil }
        daemon.send(.terminate)
        return try daemon.wait()
    }

    /// Starts mobiusctl with `arguments` in the background.
    func spawnCtl(_ arguments: [String], environment extra: [String: String] = [:]) throws -> CtlChild {
        runs += 1
        let environment = self.environment.merging(extra) { $1 }
        return try CtlChild(
            CtlBinaries.mobiusctl, arguments, environment: environment, outputPrefix: "\(directory)/ctl\(runs)")
    }

    /// Runs mobiusctl to the end.
    func ctl(_ arguments: [String], environment extra: [String: String] = [:]) throws -> CtlRun {
        let child = try spawnCtl(arguments, environment: extra)
        let exit = try child.wait()
        return CtlRun(exit: exit, stdout: child.stdout, stderr: child.stderr)
    }

    /// Runs `mobiusctl --socket socketPath arguments…` to the end.
    func ctlAtSocket(_ arguments: String...) throws -> CtlRun {
        try ctl(["--socket", socketPath] + arguments)
    }

    /// The words of the `key=` line of the unit `systemd/name` (as systemd splits a command without quotes).
    static func unitCommand(_ name: String, _ key: String) throws -> [String] {
        let unit = try String(contentsOfFile: "\(DocCatalog.packageDirectory)/systemd/\(name)", encoding: .utf8)
        let line = try #require(unit.split(separator: "\n").first { $0.hasPrefix(key + "=") }, "\(name) has \(key)=")
        return line.dropFirst(key.count + 1).split(separator: " ").map(String.init)
    }

    /// Leaves a socket file at `path` that nobody listens on (what a killed daemon leaves behind): a listener
    /// closed at once keeps its file, and connecting to it is refused.
    func makeStaleSocket(at path: String) throws {
        try UnixSocket.listen(path: path).close()
    }

    deinit {
        if let daemon, daemon.exit == nil {
            daemon.send(.terminate)
            _ = try? daemon.wait(timeout: .seconds(5))
        }
    }
}
