internal import Synchronization

/// The system calls that go through the fault seam, named after their C functions.
package enum SystemCall: String, Sendable, CaseIterable {
    case accept4, access, bind, chmod, chown, connect, dup2, eventfd, fcntl, fdatasync, flock, fstat, fsync, ftruncate
    case getrlimit, getsockopt, kill, listen, lstat, mkdir, open, opendir, pipe2, poll, pread, pwrite, read, readdir
    case readlink, rename, send, setpriority, setrlimit, setsockopt, signalfd, socket, spawn, stat, unlink, waitpid
    case write, ioctl, tcgetattr, tcsetattr
    case epollCreate = "epoll_create1"
    case epollControl = "epoll_ctl"
    case epollWait = "epoll_wait"
    case aioSetup = "io_setup"
    case aioSubmit = "io_submit"
    case aioGetEvents = "io_getevents"
    case pidfdOpen = "pidfd_open"
    case posixSpawn = "posix_spawnp"
}

/// One wrapped call as the seam sees it, before it reaches the kernel.
package struct SystemCallSite: Sendable, Equatable, CustomStringConvertible {
    package let call: SystemCall
    /// The descriptor it works on, or `nil`.
    package let fd: FileDescriptor?
    /// The path it names, or `nil`.
    package let path: String?

    package var description: String {
        "\(call.rawValue)(\([fd?.description, path].compactMap { $0 }.joined(separator: ", ")))"
    }
}

/// What the seam does to one call.
package enum InjectedFault: Sendable, Equatable {
    /// The call fails with this errno without reaching the kernel (EINTR is retried like a real one).
    case fail(Errno)
    /// A read or write transfers at most this many bytes (at least 1); other calls run as usual.
    case shortTransfer(Int)
}

/// The seam through which tests fail any wrapped system call (`Syscalls.swift`): each installed rule sees every
/// wrapped call before it is made and may answer with a fault. With no rule installed, a call pays one relaxed load
/// and a branch. MobiusTestSupport's `FaultInjection` builds rules for one thread, one descriptor or the Nth call.
package enum SystemCallFaults {
    package typealias Rule = @Sendable (SystemCallSite) -> InjectedFault?

    /// Whether any rule is installed: the only thing a call reads when none is.
    private static let active = Atomic<Bool>(false)
    private static let rules = Mutex<(next: Int, installed: [(id: Int, rule: Rule)])>((0, []))

    /// Installs `rule` until `remove` is called with the returned token. Rules run in the order installed; the
    /// first fault wins. A rule runs on the thread making the call, and must not itself install or remove rules.
    package static func install(_ rule: @escaping Rule) -> Int {
        rules.withLock { state in
            state.next += 1
            state.installed.append((state.next, rule))
            active.store(true, ordering: .relaxed)
            return state.next
        }
    }

    /// Removes the rule that `install` returned `token` for.
    package static func remove(_ token: Int) {
        rules.withLock { state in
            state.installed.removeAll { $0.id == token }
            active.store(!state.installed.isEmpty, ordering: .relaxed)
        }
    }

    /// The fault for a call about to be made, if a rule asks for one.
    @inline(__always)
    static func fault(_ call: SystemCall, fd: Int32, path: String?) -> InjectedFault? {
        guard active.load(ordering: .relaxed) else { return nil }
        return decide(SystemCallSite(call: call, fd: fd < 0 ? nil : FileDescriptor(rawValue: fd), path: path))
    }

    private static func decide(_ site: SystemCallSite) -> InjectedFault? {
        // The rules run outside the lock, so that a rule may take locks of its own.
        for rule in rules.withLock({ $0.installed.map(\.rule) }) {
            if let fault = rule(site) { return fault }
        }
        return nil
    }
}
