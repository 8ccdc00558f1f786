internal import CLinux
internal import Glibc

/// A process this one started: stdin, stdout and stderr from files (stdin /dev/null unless given), reaped with
/// `waitpid`.
/// The child gets an empty signal mask, default signal dispositions and no descriptor but 0-2, whatever this
/// process blocked, ignored or left open (an inherited blocked SIGTERM would make a child
/// unstoppable).
package struct ChildProcess: Sendable {
    /// The signals a parent sends its children.
    package enum Signal: Int32, Sendable {
        case hangUp = 1  // SIGHUP
        case interrupt = 2  // SIGINT
        case kill = 9  // SIGKILL
        case terminate = 15  // SIGTERM
    }

    /// How a child ended.
    package enum Termination: Equatable, Sendable, CustomStringConvertible {
        case exited(Int32)
        case signaled(Int32)

        /// Decodes a `waitpid` status (the WIFEXITED/WEXITSTATUS macros do not import into Swift).
        init(waitStatus status: Int32) {
            self = status & 0x7f == 0 ? .exited((status >> 8) & 0xff) : .signaled(status & 0x7f)
        }

        package var description: String {
            switch self {
            case .exited(let code): "exit status \(code)"
            case .signaled(let signal): "killed by signal \(signal)"
            }
        }
    }

    /// The child's process id.
    package let processID: Int32

    /// Adopts the child with process id `processID`, to signal it or wait for it (one whose id was passed on
    /// rather than the value `spawn` returned).
    package init(processID: Int32) {
        self.processID = processID
    }

    /// Starts `arguments[0]` (looked up on PATH when it has no slash). The output files are created or truncated.
    /// The corresponding C function is `posix_spawnp`.
    /// - Parameters:
    ///   - standardInput: the file the child reads as stdin.
    ///   - workingDirectory: where the child starts, or `nil` for this process's working directory.
    ///   - environment: the child's complete environment, or `nil` for this process's.
    /// - Throws: `SystemError` naming the program when it cannot be started (ENOENT when it is not found, or when
    ///   `standardInput` or `workingDirectory` does not exist).
    package static func spawn(
        _ arguments: [String], standardInput: String = "/dev/null", standardOutput: String = "/dev/null",
        standardError: String = "/dev/null", workingDirectory: String? = nil, environment: [String: String]? = nil
    ) throws(SystemError) -> ChildProcess {
        precondition(!arguments.isEmpty, "ChildProcess.spawn needs a program")
        var actions = posix_spawn_file_actions_t()
        posix_spawn_file_actions_init(&actions)
        defer { posix_spawn_file_actions_destroy(&actions) }
        let output = O_WRONLY | O_CREAT | O_TRUNC
        posix_spawn_file_actions_addopen(&actions, 0, standardInput, O_RDONLY, 0)
        posix_spawn_file_actions_addopen(&actions, 1, standardOutput, output, 0o644)
        posix_spawn_file_actions_addopen(&actions, 2, standardError, output, 0o644)
        posix_spawn_file_actions_addclosefrom_np(&actions, 3)
        if let workingDirectory {
            // After the opens, so relative output paths mean what they mean to the caller.
            _ = addChangeDirectory(&actions, workingDirectory)
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

        let argv = arguments.map { strdup($0) } + [nil]
        let envp = environment.map { variables in variables.map { strdup("\($0.key)=\($0.value)") } + [nil] }
        defer {
            for pointer in argv { free(pointer) }
            for pointer in envp ?? [] { free(pointer) }
        }
        var pid: pid_t = 0
        // posix_spawnp returns the error number instead of setting errno.
        let result =
            if let envp {
                posix_spawnp(&pid, arguments[0], &actions, &attributes, argv, envp)
            } else {
                posix_spawnp(&pid, arguments[0], &actions, &attributes, argv, environ)
            }
        guard result == 0 else { throw SystemError(errno: result, operation: "posix_spawnp", subject: arguments[0]) }
        return ChildProcess(processID: pid)
    }

    private typealias AddChangeDirectory =
        @convention(c) (UnsafeMutablePointer<posix_spawn_file_actions_t>, UnsafePointer<CChar>) -> Int32

    /// glibc's `posix_spawn_file_actions_addchdir_np` (2.29+), which neither the Glibc module nor CLinux declares
    /// (it sits behind `_GNU_SOURCE`); looked up once.
    private static let addChangeDirectory: AddChangeDirectory = {
        guard let symbol = dlsym(nil, "posix_spawn_file_actions_addchdir_np") else {
            fatalError("glibc without posix_spawn_file_actions_addchdir_np (needs 2.29+)")
        }
        return unsafeBitCast(symbol, to: AddChangeDirectory.self)
    }()

    /// Sends `signal` to the child. The corresponding C function is `kill`.
    /// - Throws: `SystemError` (ESRCH) when the child has already been reaped.
    package func send(_ signal: Signal) throws(SystemError) {
        guard Glibc.kill(processID, signal.rawValue) == 0 else {
            throw SystemError.current("kill", "process \(processID)")
        }
    }

    /// How the child ended, reaping it, or `nil` while it runs. The corresponding C function is `waitpid` with
    /// `WNOHANG`.
    /// - Throws: `SystemError` (ECHILD) when it was already reaped.
    package func termination() throws(SystemError) -> Termination? {
        var status: Int32 = 0
        let result = retryingOnInterrupt { waitpid(processID, &status, WNOHANG) }
        if result == 0 { return nil }
        guard result == processID else { throw SystemError.current("waitpid", "process \(processID)") }
        return Termination(waitStatus: status)
    }

    /// Blocks until the child ends and reaps it. The corresponding C function is `waitpid`.
    /// - Throws: `SystemError` (ECHILD) when it was already reaped.
    package func waitForExit() throws(SystemError) -> Termination {
        var status: Int32 = 0
        guard retryingOnInterrupt({ waitpid(processID, &status, 0) }) == processID else {
            throw SystemError.current("waitpid", "process \(processID)")
        }
        return Termination(waitStatus: status)
    }
}
