internal import Glibc

/// Starts named POSIX threads running closures (no Foundation). Every thread the daemon starts names its stack
/// size: input never decides how deep code recurses, and the size is chosen, not inherited from RLIMIT_STACK.
///
/// Every thread it starts is born with the signals the daemon reads from its signalfd (`SignalFD.Signal`: SIGTERM,
/// SIGINT, SIGHUP) blocked, whenever it starts: one started before the signalfd exists would otherwise take such a
/// signal's default action and end the process.
package enum SystemThread {
    private final class Start {
        let name: String
        let body: () -> Void
        init(_ name: String, _ body: @escaping () -> Void) {
            self.name = String(name.prefix(15))
            self.body = body
        }
    }

    /// A started thread that can be waited for.
    package struct Handle: Sendable {
        fileprivate let thread: pthread_t

        /// Waits until the thread's body has returned. The corresponding C function is `pthread_join`.
        package func join() {
            pthread_join(thread, nil)
        }
    }

    /// Runs `body` on a new thread with a stack of `stackSize` bytes (only the pages it touches become resident).
    /// A detached thread cannot be joined; a joinable one must be joined exactly once.
    @discardableResult
    package static func spawn(
        name: String, stackSize: Int, joinable: Bool = false, _ body: @escaping @Sendable () -> Void
    ) throws(SystemError) -> Handle {
        // Blocked here until pthread_create has returned: the thread inherits the mask, so no signal finds it
        // unblocked, not even before its first instruction.
        let previousMask = try Syscall.blockSignals(SignalFD.Signal.allCases.map(\.rawValue))
        defer { Syscall.restoreSignalMask(previousMask) }
        let start = Unmanaged.passRetained(Start(name, body)).toOpaque()
        var attributes = pthread_attr_t()
        pthread_attr_init(&attributes)
        defer { pthread_attr_destroy(&attributes) }
        let sizeResult = pthread_attr_setstacksize(&attributes, max(stackSize, Int(PTHREAD_STACK_MIN)))
        guard sizeResult == 0 else {
            Unmanaged<Start>.fromOpaque(start).release()
            throw SystemError(errno: Errno(rawValue: sizeResult), operation: "pthread_attr_setstacksize", subject: name)
        }
        var thread = pthread_t()
        let result = pthread_create(
            &thread, &attributes,
            { raw in
                let start = Unmanaged<Start>.fromOpaque(raw!).takeRetainedValue()
                Syscall.setThreadName(start.name)
                start.body()
                return nil
            }, start)
        guard result == 0 else {
            Unmanaged<Start>.fromOpaque(start).release()
            throw SystemError(errno: Errno(rawValue: result), operation: "pthread_create", subject: name)
        }
        if !joinable { pthread_detach(thread) }
        return Handle(thread: thread)
    }
}

extension SystemThread {
    /// Gives the calling thread the nice value `nice` (1 to 19: lower priority than the process's other threads),
    /// so that under CPU contention the others are scheduled first. The corresponding C function is `setpriority`.
    package static func setCurrentNice(_ nice: Int32) throws(SystemError) {
        try Syscall.setThreadNice(nice).mapError { SystemError(errno: $0, operation: "setpriority", subject: "") }.get()
    }

    /// An identifier of the calling thread (`pthread_self`), to tell whether code runs on a given thread.
    package static var currentID: UInt {
        UInt(bitPattern: Int(bitPattern: UnsafeRawPointer(bitPattern: UInt(pthread_self()))))
    }
}
