import Foundation
import Glibc

/// A failure in mobiusctl's test harness, with what was expected and what came instead.
struct CtlTestError: Error, CustomStringConvertible {
    let description: String

    init(_ description: String) {
        self.description = description
    }
}

/// How a child ended.
enum CtlExit: Equatable, CustomStringConvertible {
    case exited(Int32)
    case signaled(Int32)

    /// Decodes a `waitpid` status (WIFEXITED and friends are macros that do not import).
    init(waitStatus status: Int32) {
        self = status & 0x7f == 0 ? .exited((status >> 8) & 0xff) : .signaled(status & 0x7f)
    }

    var description: String {
        switch self {
        case .exited(let code): return "exit \(code)"
        case .signaled(let signal): return "signal \(signal)"
        }
    }
}

/// The built binaries, found next to the test bundle (`.build/<triple>/debug/`). `MOBIUSCTL_TEST_MOBIUSD` may
/// name another mobiusd to test against (e.g. one built from a known-good commit).
enum CtlBinaries {
    static let directory: String = {
        let bundle = (try? FileManager.default.destinationOfSymbolicLink(atPath: "/proc/self/exe")) ?? ""
        return URL(fileURLWithPath: bundle).deletingLastPathComponent().path
    }()
    static var mobiusd: String {
        ProcessInfo.processInfo.environment["MOBIUSCTL_TEST_MOBIUSD"] ?? directory + "/mobiusd"
    }
    static var mobiusctl: String { directory + "/mobiusctl" }
}

/// A child process with stdout and stderr in files, started with posix_spawn: empty signal mask and default
/// dispositions (so SIGINT reaches mobiusctl even when the test thread blocks it), no inherited descriptors
/// beyond 0-2 (tests run in parallel; a leaked socket would keep a peer from seeing EOF), and exactly the
/// environment given (so the runner's own MOBIUSD_SOCKET cannot leak in).
final class CtlChild {
    let pid: pid_t
    let stdoutPath: String
    let stderrPath: String
    private(set) var exit: CtlExit?

    init(_ program: String, _ arguments: [String], environment: [String: String], outputPrefix: String) throws {
        stdoutPath = outputPrefix + ".out"
        stderrPath = outputPrefix + ".err"
        var actions = posix_spawn_file_actions_t()
        posix_spawn_file_actions_init(&actions)
        defer { posix_spawn_file_actions_destroy(&actions) }
        posix_spawn_file_actions_addopen(&actions, 0, "/dev/null", O_RDONLY, 0)
        posix_spawn_file_actions_addopen(&actions, 1, stdoutPath, O_WRONLY | O_CREAT | O_TRUNC, 0o644)
        posix_spawn_file_actions_addopen(&actions, 2, stderrPath, O_WRONLY | O_CREAT | O_TRUNC, 0o644)
        _ = CtlChild.addCloseFrom(&actions, 3)
        var attributes = posix_spawnattr_t()
        posix_spawnattr_init(&attributes)
        defer { posix_spawnattr_destroy(&attributes) }
        var noSignals = sigset_t()
        sigemptyset(&noSignals)
        var defaults = sigset_t()
        sigemptyset(&defaults)
        for signal in [SIGINT, SIGTERM, SIGPIPE, SIGHUP, SIGQUIT] { sigaddset(&defaults, signal) }
        posix_spawnattr_setsigmask(&attributes, &noSignals)
        posix_spawnattr_setsigdefault(&attributes, &defaults)
        posix_spawnattr_setflags(&attributes, Int16(POSIX_SPAWN_SETSIGMASK | POSIX_SPAWN_SETSIGDEF))
        let argv = ([program] + arguments).map { strdup($0) } + [nil]
        let envp = environment.map { strdup("\($0.key)=\($0.value)") } + [nil]
        defer {
            for pointer in argv { free(pointer) }
            for pointer in envp { free(pointer) }
        }
        var pid: pid_t = 0
        let result = posix_spawn(&pid, program, &actions, &attributes, argv, envp)
        guard result == 0 else {
            throw CtlTestError("cannot start \(program): \(String(cString: strerror(result)))")
        }
        self.pid = pid
    }

    /// What the child wrote to stdout so far.
    var stdout: String { CtlChild.contents(stdoutPath) }
    /// What the child wrote to stderr so far.
    var stderr: String { CtlChild.contents(stderrPath) }

    /// Sends `signal` unless the child has been reaped.
    func send(_ signal: Int32) {
        if exit == nil { kill(pid, signal) }
    }

    /// Waits for the child to end; kills it and throws if it runs past `timeout`.
    @discardableResult
    func wait(timeout: Duration = .seconds(10)) throws -> CtlExit {
        if let exit { return exit }
        let deadline = ContinuousClock.now + timeout
        var status: Int32 = 0
        while true {
            let result = waitpid(pid, &status, WNOHANG)
            if result == pid {
                let ended = CtlExit(waitStatus: status)
                exit = ended
                return ended
            }
            if ContinuousClock.now >= deadline {
                kill(pid, SIGKILL)
                _ = waitpid(pid, &status, 0)
                exit = .signaled(SIGKILL)
                throw CtlTestError("pid \(pid) still running after \(timeout); stdout: \(stdout) stderr: \(stderr)")
            }
            usleep(2_000)
        }
    }

    /// Waits until stdout (or stderr) holds `text`; throws after `timeout`, quoting what it holds.
    func waitForOutput(_ text: String, onStderr: Bool = false, timeout: Duration = .seconds(10)) throws {
        let deadline = ContinuousClock.now + timeout
        while !(onStderr ? stderr : stdout).contains(text) {
            guard ContinuousClock.now < deadline else {
                throw CtlTestError("never saw \(text); stdout: \(stdout) stderr: \(stderr)")
            }
            usleep(5_000)
        }
    }

    deinit {
        if exit == nil {
            kill(pid, SIGKILL)
            var status: Int32 = 0
            _ = waitpid(pid, &status, 0)
        }
    }

    private static func contents(_ path: String) -> String {
        guard let data = FileManager.default.contents(atPath: path) else { return "" }
        return String(decoding: data, as: UTF8.self)
    }

    private typealias AddCloseFromFunction =
        @convention(c) (UnsafeMutablePointer<posix_spawn_file_actions_t>, Int32) -> Int32

    /// glibc's `posix_spawn_file_actions_addclosefrom_np` (2.34+), which the Glibc module does not import.
    private static let addCloseFrom: AddCloseFromFunction = {
        guard let symbol = dlsym(nil, "posix_spawn_file_actions_addclosefrom_np") else {
            fatalError("glibc lacks posix_spawn_file_actions_addclosefrom_np")
        }
        return unsafeBitCast(symbol, to: AddCloseFromFunction.self)
    }()
}

/// A finished mobiusctl run.
struct CtlRun: CustomStringConvertible {
    let exit: CtlExit
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
    let directory: String
    /// The socket given to mobiusd with `--socket`.
    let socketPath: String
    /// The environment of every child (daemon and mobiusctl).
    let environment: [String: String]
    private(set) var daemon: CtlChild?
    private var runs = 0

    init() {
        var template = Array("/tmp/mobiusctl-XXXXXX".utf8CString)
        let made = template.withUnsafeMutableBufferPointer { mkdtemp($0.baseAddress!) }
        precondition(made != nil, "mkdtemp: \(String(cString: strerror(errno)))")
        directory = String(decoding: template.prefix { $0 != 0 }.map { UInt8(bitPattern: $0) }, as: UTF8.self)
        socketPath = directory + "/ctl.sock"
        let runtime = directory + "/run"
        mkdir(runtime, 0o700)
        environment = [
            "PATH": ProcessInfo.processInfo.environment["PATH"] ?? "/usr/bin:/bin",
            "HOME": directory, "XDG_RUNTIME_DIR": runtime, "XDG_STATE_HOME": directory + "/state",
        ]
    }

    /// Starts mobiusd (`--socket socketPath` unless `defaultSocket`) and waits for its banner and socket.
    @discardableResult
    func startDaemon(defaultSocket: Bool = false) throws -> CtlChild {
        let arguments = defaultSocket ? [] : ["--socket", socketPath]
        let child = try CtlChild(
            CtlBinaries.mobiusd, arguments, environment: environment, outputPrefix: directory + "/mobiusd")
        daemon = child
        try child.waitForOutput("listening on")
        return child
    }

    /// Stops mobiusd with SIGTERM and returns how it ended.
    @discardableResult
    func stopDaemon() throws -> CtlExit? {
        guard let daemon else { return nil }
        daemon.send(SIGTERM)
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

    /// Leaves a socket file at `path` that nobody listens on (what a killed daemon leaves behind).
    func makeStaleSocket(at path: String) throws {
        let fd = socket(AF_UNIX, Int32(SOCK_STREAM.rawValue), 0)
        defer { close(fd) }
        var address = sockaddr_un()
        address.sun_family = sa_family_t(AF_UNIX)
        withUnsafeMutableBytes(of: &address.sun_path) { raw in
            raw.copyBytes(from: Array(path.utf8) + [0])
        }
        let result = withUnsafePointer(to: &address) {
            $0.withMemoryRebound(to: sockaddr.self, capacity: 1) {
                bind(fd, $0, socklen_t(MemoryLayout<sockaddr_un>.size))
            }
        }
        guard result == 0 else { throw CtlTestError("bind \(path): \(String(cString: strerror(errno)))") }
    }

    deinit {
        if let daemon, daemon.exit == nil {
            daemon.send(SIGTERM)
            _ = try? daemon.wait(timeout: .seconds(5))
        }
        try? FileManager.default.removeItem(atPath: directory)
    }
}
