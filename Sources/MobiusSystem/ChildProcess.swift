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
        let pid = try Syscall.spawn(
            arguments, standardInput: standardInput, standardOutput: standardOutput, standardError: standardError,
            workingDirectory: workingDirectory, environment: environment
        ).get("posix_spawnp", arguments[0])
        return ChildProcess(processID: pid)
    }

    /// Sends `signal` to the child. The corresponding C function is `kill`.
    /// - Throws: `SystemError` (ESRCH) when the child has already been reaped.
    package func send(_ signal: Signal) throws(SystemError) {
        try Syscall.kill(processID, signal.rawValue).get("kill", "process \(processID)")
    }

    /// How the child ended, reaping it, or `nil` while it runs. The corresponding C function is `waitpid` with
    /// `WNOHANG`.
    /// - Throws: `SystemError` (ECHILD) when it was already reaped.
    package func termination() throws(SystemError) -> Termination? {
        let (pid, status) = try Syscall.waitpid(processID, blocking: false).get("waitpid", "process \(processID)")
        return pid == 0 ? nil : Termination(waitStatus: status)
    }

    /// Blocks until the child ends and reaps it. The corresponding C function is `waitpid`.
    /// - Throws: `SystemError` (ECHILD) when it was already reaped.
    package func waitForExit() throws(SystemError) -> Termination {
        Termination(
            waitStatus: try Syscall.waitpid(processID, blocking: true).get("waitpid", "process \(processID)").status)
    }
}
