/// A child process connected by three pipes (its stdin, stdout and stderr) and a pidfd that becomes readable when
/// it ends: how the daemon runs plugins (docs/protocol.md 2.1).
///
/// The child runs in a process group of its own, with an empty signal mask, default signal dispositions and no
/// descriptor but 0-2; optionally with other supplementary groups, gid and uid, set in that order before `execve`.
/// The parent's ends of the pipes and the pidfd are non-blocking and close-on-exec.
package struct PipedProcess: Sendable {
    /// The account a child runs as (set only when the daemon runs as root).
    package struct Credentials: Sendable, Equatable {
        /// The user id.
        package var uid: UInt32
        /// The primary group id.
        package var gid: UInt32
        /// The supplementary groups.
        package var groups: [UInt32]

        /// Names an account.
        package init(uid: UInt32, gid: UInt32, groups: [UInt32]) {
            self.uid = uid
            self.gid = gid
            self.groups = groups
        }
    }

    /// The child's process id, which is also its process group id.
    package let processID: Int32
    /// Readable when the child has ended (then `reap()`).
    package let pidFD: FileDescriptor
    /// The write end of the child's stdin.
    package let input: FileDescriptor
    /// The read end of the child's stdout.
    package let output: FileDescriptor
    /// The read end of the child's stderr.
    package let errorOutput: FileDescriptor

    /// Starts `program` (a path; look bare names up on PATH first) with `arguments` (argv, including argv[0]) and
    /// exactly `environment`.
    /// - Throws: `SystemError` naming the step that failed: `execve` (ENOENT, EACCES…), `setgroups`, `setgid`,
    ///   `setuid` (EPERM when not root), `fork`, `pipe2` or `pidfd_open`.
    package static func spawn(
        program: String, arguments: [String], environment: [String], credentials: Credentials? = nil
    ) throws(SystemError) -> PipedProcess {
        let stdin = try pipe()
        let stdout: (read: Int32, write: Int32)
        let stderr: (read: Int32, write: Int32)
        do {
            stdout = try pipe()
        } catch {
            closeAll([stdin.read, stdin.write])
            throw error
        }
        do {
            stderr = try pipe()
        } catch {
            closeAll([stdin.read, stdin.write, stdout.read, stdout.write])
            throw error
        }
        let spawned = Result { () throws(SystemError) in
            try Syscall.spawnPiped(
                program: program, arguments: arguments, environment: environment, standardInput: stdin.read,
                standardOutput: stdout.write, standardError: stderr.write, credentials: credentials)
        }
        closeAll([stdin.read, stdout.write, stderr.write])
        let pid: Int32
        do {
            pid = try spawned.get()
        } catch {
            closeAll([stdin.write, stdout.read, stderr.read])
            throw error
        }
        let pidFD: Int32
        switch Syscall.pidFD(pid) {
        case .success(let fd): pidFD = fd
        case .failure(let errno):
            _ = Syscall.kill(-pid, ChildProcess.Signal.kill.rawValue)
            _ = Syscall.waitpid(pid, blocking: true)
            closeAll([stdin.write, stdout.read, stderr.read])
            throw SystemError(errno: errno, operation: "pidfd_open", subject: "process \(pid)")
        }
        return PipedProcess(
            processID: pid, pidFD: FileDescriptor(rawValue: pidFD), input: FileDescriptor(rawValue: stdin.write),
            output: FileDescriptor(rawValue: stdout.read), errorOutput: FileDescriptor(rawValue: stderr.read))
    }

    /// A close-on-exec pipe, blocking on both ends (`setParentEndsNonBlocking` changes the parent's).
    private static func pipe() throws(SystemError) -> (read: Int32, write: Int32) {
        try Syscall.pipe().get("pipe2")
    }

    private static func closeAll(_ fds: [Int32]) {
        for fd in fds { Syscall.close(fd) }
    }

    /// Makes the parent's ends non-blocking (the child's ends stay blocking, as programs expect).
    package func setParentEndsNonBlocking() throws(SystemError) {
        try input.setNonBlocking()
        try output.setNonBlocking()
        try errorOutput.setNonBlocking()
    }

    /// Sends `signal` to the child's whole process group; `false` when the group no longer exists. The
    /// corresponding C function is `kill` with a negative pid.
    @discardableResult
    package func signalGroup(_ signal: ChildProcess.Signal) -> Bool {
        (try? Syscall.kill(-processID, signal.rawValue).get()) != nil
    }

    /// Whether any process of the child's group still runs (the leader counts until reaped). Ended processes that
    /// wait to be reaped do not count: orphans are reaped by init, which in a container may do it late or never.
    /// Asks `kill` with a negative pid and signal 0 first; only when the group has members does it read their
    /// states in /proc, and members it cannot see there (another user's, under `hidepid`) count as running.
    package var groupExists: Bool {
        switch Syscall.kill(-processID, 0) {
        case .success, .failure(.notPermitted): break
        case .failure: return false
        }
        guard let names = try? DirectoryListing.names(in: "/proc") else { return true }
        var sawMember = false
        for name in names where name.utf8.first.map({ $0 >= UInt8(ascii: "0") && $0 <= UInt8(ascii: "9") }) == true {
            // "pid (command) state ppid pgrp …": the command may hold spaces and parentheses; the last ")" ends it.
            guard let stat = try? FileSystem.read("/proc/\(name)/stat"),
                let close = stat.lastIndex(of: UInt8(ascii: ")"))
            else { continue }
            let fields = stat[(close + 1)...].split(separator: UInt8(ascii: " "), maxSplits: 3)
            guard fields.count > 2, Int32(String(decoding: fields[2], as: UTF8.self)) == processID else { continue }
            if fields[0].first != UInt8(ascii: "Z") && fields[0].first != UInt8(ascii: "X") { return true }
            sawMember = true
        }
        return !sawMember
    }

    /// Reaps the child once `pidFD` is readable; `nil` while it still runs. The corresponding C function is
    /// `waitpid` with `WNOHANG`.
    package func reap() -> ChildProcess.Termination? {
        try? ChildProcess(processID: processID).termination()
    }

    /// Closes the parent's descriptors (pipes and pidfd).
    package func closeDescriptors() {
        input.close()
        output.close()
        errorOutput.close()
        pidFD.close()
    }
}
