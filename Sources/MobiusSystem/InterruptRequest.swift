internal import Synchronization

/// Ctrl-C as a request to stop: once SIGINT is caught, the interruptible blocking calls (`readInterruptibly`,
/// `writeAllInterruptibly`, `connectInterruptibly`) give up with EINTR instead of resuming, so a command-line tool
/// can end quietly.
///
/// The daemon does not use this (it takes signals through ``SignalFD``); nothing changes until
/// ``catchSignal(shuttingDown:)`` is called.
package enum InterruptRequest {
    private static let pending = Atomic<Bool>(false)
    private static let socketToShutDown = Atomic<Int32>(-1)

    /// Whether SIGINT arrived since ``catchSignal(shuttingDown:)``.
    package static var isPending: Bool { pending.load(ordering: .acquiring) }

    /// Catches SIGINT from now on (without `SA_RESTART`) and shuts `socket` down when it arrives.
    ///
    /// Shutting the socket down ends a blocked `read` on it at once (end of file) even when the signal is delivered
    /// to another thread. Throws only if the kernel rejects the handler. The corresponding C functions are
    /// `sigaction` and, in the handler, `shutdown`.
    package static func catchSignal(shuttingDown socket: FileDescriptor) throws(SystemError) {
        socketToShutDown.store(socket.rawValue, ordering: .releasing)
        // Only async-signal-safe work here: two atomics and shutdown(2).
        try Syscall.catchInterrupt { _ in
            InterruptRequest.pending.store(true, ordering: .releasing)
            let fd = InterruptRequest.socketToShutDown.load(ordering: .acquiring)
            if fd >= 0 { Syscall.shutdown(fd) }
        }.get("sigaction", "SIGINT")
    }

    /// Ends the process by SIGINT after all, once the caller has tidied up (taken a progress line away): the shell
    /// sees what it would have seen had the signal not been caught.
    package static func endByInterrupt() -> Never {
        Syscall.dieOfInterrupt()
    }
}
