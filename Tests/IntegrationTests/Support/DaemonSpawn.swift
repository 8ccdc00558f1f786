import Foundation
import Glibc
import MobiusSystem

/// A test-side failure with a message a reader can act on (what was expected, what came instead).
struct DaemonTestError: Error, CustomStringConvertible {
    let description: String

    init(_ description: String) {
        self.description = description
    }
}

/// How a child process ended.
enum DaemonExit: Equatable, CustomStringConvertible {
    case exited(Int32)
    case signaled(Int32)

    /// Decodes a `waitpid` status (the WIFEXITED/WEXITSTATUS macros do not import into Swift).
    init(waitStatus status: Int32) {
        if status & 0x7f == 0 {
            self = .exited((status >> 8) & 0xff)
        } else {
            self = .signaled(status & 0x7f)
        }
    }

    var description: String {
        switch self {
        case .exited(let code): return "exit status \(code)"
        case .signaled(let signal): return "killed by signal \(signal)"
        }
    }
}

/// posix_spawn for tests: children get an empty signal mask and default dispositions (DESIGN.md pitfalls), stdin,
/// stdout and stderr from files, and no other descriptor of the test process (tests run in parallel, and a
/// leaked client socket would keep a peer from ever seeing EOF).
enum DaemonSpawn {
    /// Starts `program` (looked up on PATH when it has no slash) and returns its pid.
    static func spawn(
        _ program: String, _ arguments: [String], stdinPath: String = "/dev/null", stdoutPath: String,
        stderrPath: String, workingDirectory: String? = nil, environment extra: [String: String] = [:],
        inheritEnvironment: Bool = true
    ) throws -> pid_t {
        var actions = posix_spawn_file_actions_t()
        posix_spawn_file_actions_init(&actions)
        defer { posix_spawn_file_actions_destroy(&actions) }
        posix_spawn_file_actions_addopen(&actions, 0, stdinPath, O_RDONLY, 0)
        posix_spawn_file_actions_addopen(&actions, 1, stdoutPath, O_WRONLY | O_CREAT | O_TRUNC, 0o644)
        posix_spawn_file_actions_addopen(&actions, 2, stderrPath, O_WRONLY | O_CREAT | O_TRUNC, 0o644)
        _ = GlibcExtras.addCloseFrom(&actions, 3)
        if let workingDirectory {
            _ = GlibcExtras.addChangeDirectory(&actions, workingDirectory)
        }

        var attributes = posix_spawnattr_t()
        posix_spawnattr_init(&attributes)
        defer { posix_spawnattr_destroy(&attributes) }
        var emptyMask = sigset_t()
        sigemptyset(&emptyMask)
        var allSignals = sigset_t()
        sigfillset(&allSignals)
        posix_spawnattr_setsigmask(&attributes, &emptyMask)
        posix_spawnattr_setsigdefault(&attributes, &allSignals)
        posix_spawnattr_setflags(&attributes, Int16(POSIX_SPAWN_SETSIGMASK | POSIX_SPAWN_SETSIGDEF))

        var environment = inheritEnvironment ? ProcessInfo.processInfo.environment : [:]
        for (key, value) in extra { environment[key] = value }
        let argv = ([program] + arguments).map { strdup($0) } + [nil]
        let envp = environment.map { strdup("\($0.key)=\($0.value)") } + [nil]
        defer {
            for pointer in argv { free(pointer) }
            for pointer in envp { free(pointer) }
        }
        var pid: pid_t = 0
        let result = posix_spawnp(&pid, program, &actions, &attributes, argv, envp)
        guard result == 0 else {
            throw DaemonTestError(
                "cannot start \(program): \(SystemError(errno: result, operation: "posix_spawnp").reason)")
        }
        return pid
    }

    /// Reaps `pid` if it has exited; `nil` while it runs.
    static func reap(_ pid: pid_t) -> DaemonExit? {
        var status: Int32 = 0
        while true {
            let result = waitpid(pid, &status, WNOHANG)
            if result == pid { return DaemonExit(waitStatus: status) }
            if result == -1 && errno == EINTR { continue }
            return nil
        }
    }

    /// Waits up to `timeout` for `pid` to exit (polling, so a hung child cannot hang the test).
    static func wait(_ pid: pid_t, timeout: Duration) -> DaemonExit? {
        let deadline = ContinuousClock.now + timeout
        while true {
            if let exit = reap(pid) { return exit }
            if ContinuousClock.now >= deadline { return nil }
            usleep(2_000)
        }
    }

    /// The absolute path of `program` on PATH, or `nil` (for tests that need a tool such as socat).
    static func which(_ program: String) -> String? {
        let path = ProcessInfo.processInfo.environment["PATH"] ?? "/usr/local/bin:/usr/bin:/bin"
        for directory in path.split(separator: ":") {
            let candidate = "\(directory)/\(program)"
            if FileSystem.isExecutable(candidate) { return candidate }
        }
        return nil
    }

    /// The built `mobiusd`: `$MOBIUSD_TEST_BINARY` when set (to test another build), else next to the test bundle
    /// (`/proc/self/exe`), else `.build/debug` of the package that holds this file.
    static let mobiusdPath: String = {
        if let override = ProcessInfo.processInfo.environment["MOBIUSD_TEST_BINARY"], !override.isEmpty {
            return override
        }
        if let bundle = try? FileManager.default.destinationOfSymbolicLink(atPath: "/proc/self/exe") {
            let candidate = URL(fileURLWithPath: bundle).deletingLastPathComponent().appendingPathComponent("mobiusd")
            if FileSystem.isExecutable(candidate.path) { return candidate.path }
        }
        var directory = URL(fileURLWithPath: #filePath).deletingLastPathComponent()
        while directory.path != "/" {
            if FileManager.default.fileExists(atPath: directory.appendingPathComponent("Package.swift").path) {
                return directory.appendingPathComponent(".build/debug/mobiusd").path
            }
            directory.deleteLastPathComponent()
        }
        return ".build/debug/mobiusd"
    }()
}

/// glibc's `posix_spawn_file_actions_*_np` calls, which the Glibc module does not import (they sit behind
/// `__USE_MISC`); looked up once with dlsym.
private enum GlibcExtras {
    typealias AddCloseFrom = @convention(c) (UnsafeMutablePointer<posix_spawn_file_actions_t>, Int32) -> Int32
    typealias AddChangeDirectory =
        @convention(c) (UnsafeMutablePointer<posix_spawn_file_actions_t>, UnsafePointer<CChar>) -> Int32

    static let addCloseFrom: AddCloseFrom = {
        guard let symbol = dlsym(nil, "posix_spawn_file_actions_addclosefrom_np") else {
            fatalError("glibc without posix_spawn_file_actions_addclosefrom_np (needs 2.34+)")
        }
        return unsafeBitCast(symbol, to: AddCloseFrom.self)
    }()

    static let addChangeDirectory: AddChangeDirectory = {
        guard let symbol = dlsym(nil, "posix_spawn_file_actions_addchdir_np") else {
            fatalError("glibc without posix_spawn_file_actions_addchdir_np (needs 2.29+)")
        }
        return unsafeBitCast(symbol, to: AddChangeDirectory.self)
    }()
}

/// A fresh temporary directory (mode 0755, so other users can reach a socket in it), removed when released.
final class DaemonScratch {
    let path: String

    init() {
        var template = Array("/tmp/mobiusd-it-XXXXXX".utf8CString)
        let made = template.withUnsafeMutableBufferPointer { mkdtemp($0.baseAddress!) }
        precondition(made != nil, "mkdtemp failed: \(SystemError.current("mkdtemp").reason)")
        path = String(decoding: template.prefix { $0 != 0 }.map { UInt8(bitPattern: $0) }, as: UTF8.self)
        try? FileSystem.setMode(path, 0o755)
    }

    /// `path/name`.
    func file(_ name: String) -> String { "\(path)/\(name)" }

    /// Writes `text` to `path/name` and returns the full path.
    @discardableResult
    func write(_ name: String, _ text: String) -> String {
        let full = file(name)
        _ = FileManager.default.createFile(atPath: full, contents: Data(text.utf8))
        return full
    }

    /// The contents of `path/name` ("" when missing).
    func read(_ name: String) -> String {
        guard let data = FileManager.default.contents(atPath: file(name)) else { return "" }
        return String(decoding: data, as: UTF8.self)
    }

    deinit {
        try? FileManager.default.removeItem(atPath: path)
    }
}

/// A short-lived command run to completion: its exit and its output.
struct DaemonToolRun {
    let exit: DaemonExit
    let stdout: String
    let stderr: String

    /// Runs `program` with `stdin` as its input; fails the test (throws) if it does not end within `timeout`.
    static func run(
        _ program: String, _ arguments: [String], stdin: [UInt8] = [], workingDirectory: String? = nil,
        environment: [String: String] = [:], timeout: Duration = .seconds(20)
    ) throws -> DaemonToolRun {
        let scratch = DaemonScratch()
        let input = scratch.file("stdin")
        _ = FileManager.default.createFile(atPath: input, contents: Data(stdin))
        let pid = try DaemonSpawn.spawn(
            program, arguments, stdinPath: input, stdoutPath: scratch.file("stdout"),
            stderrPath: scratch.file("stderr"), workingDirectory: workingDirectory, environment: environment)
        guard let exit = DaemonSpawn.wait(pid, timeout: timeout) else {
            Glibc.kill(pid, SIGKILL)
            _ = DaemonSpawn.wait(pid, timeout: .seconds(5))
            throw DaemonTestError(
                "\(program) \(arguments.joined(separator: " ")) did not finish within \(timeout); stdout so far: "
                    + scratch.read("stdout"))
        }
        return DaemonToolRun(exit: exit, stdout: scratch.read("stdout"), stderr: scratch.read("stderr"))
    }

    /// Runs the built `mobiusd` with `arguments` (for the command-line tests: `--check`, `--help`…).
    static func mobiusd(_ arguments: [String], workingDirectory: String? = nil) throws -> DaemonToolRun {
        try run(DaemonSpawn.mobiusdPath, arguments, workingDirectory: workingDirectory)
    }

    /// stdout split into lines (without the empty piece after the final newline).
    var stdoutLines: [String] {
        stdout.split(separator: "\n", omittingEmptySubsequences: false).map(String.init).filter { !$0.isEmpty }
    }
}
