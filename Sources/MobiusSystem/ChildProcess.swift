internal import CLinux
internal import Glibc

/// A process this one started: stdin from /dev/null, stdout and stderr into files, reaped with `waitpid`.
/// The child gets an empty signal mask, default signal dispositions and no descriptor but 0-2, whatever this
/// process blocked, ignored or left open (DESIGN.md pitfalls: an inherited blocked SIGTERM makes a child
/// unstoppable).
package struct ChildProcess: Sendable {
    /// The signals a parent sends its children.
    package enum Signal: Int32, Sendable {
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

    /// Starts `arguments[0]` (looked up on PATH when it has no slash) with this process's environment. The
    /// output files are created or truncated. The corresponding C function is `posix_spawnp`.
    /// - Throws: `SystemError` naming the program when it cannot be started (ENOENT when it is not found).
    package static func spawn(
        _ arguments: [String], standardOutput: String = "/dev/null", standardError: String = "/dev/null"
    ) throws(SystemError) -> ChildProcess {
        precondition(!arguments.isEmpty, "ChildProcess.spawn needs a program")
        var actions = posix_spawn_file_actions_t()
        posix_spawn_file_actions_init(&actions)
        defer { posix_spawn_file_actions_destroy(&actions) }
        let output = O_WRONLY | O_CREAT | O_TRUNC
        posix_spawn_file_actions_addopen(&actions, 0, "/dev/null", O_RDONLY, 0)
        posix_spawn_file_actions_addopen(&actions, 1, standardOutput, output, 0o644)
        posix_spawn_file_actions_addopen(&actions, 2, standardError, output, 0o644)
        posix_spawn_file_actions_addclosefrom_np(&actions, 3)

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
        defer { for pointer in argv { free(pointer) } }
        var pid: pid_t = 0
        // posix_spawnp returns the error number instead of setting errno.
        let result = posix_spawnp(&pid, arguments[0], &actions, &attributes, argv, environ)
        guard result == 0 else { throw SystemError(errno: result, operation: "posix_spawnp", subject: arguments[0]) }
        return ChildProcess(processID: pid)
    }

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
