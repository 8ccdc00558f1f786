internal import CLinux
internal import Glibc

/// Termination and reload signals delivered as readable events on a descriptor, so the I/O thread handles them in
/// its epoll loop rather than in an async-signal handler. The corresponding C function is `signalfd`.
package final class SignalFD: Sendable {
    /// The signals the daemon handles.
    package enum Signal: Int32, Sendable {
        case terminate = 15  // SIGTERM
        case interrupt = 2  // SIGINT
        case hangUp = 1  // SIGHUP
    }

    package let fd: FileDescriptor

    /// Blocks `signals` for the calling thread (and threads it creates later) and opens a descriptor for them.
    /// Call before starting other threads, so no thread takes the default action.
    package init(_ signals: [Signal]) throws(SystemError) {
        var mask = sigset_t()
        sigemptyset(&mask)
        for signal in signals { sigaddset(&mask, signal.rawValue) }
        guard pthread_sigmask(SIG_BLOCK, &mask, nil) == 0 else { throw SystemError.current("pthread_sigmask") }
        let raw = signalfd(-1, &mask, MOBIUSD_SFD_FLAGS)
        guard raw >= 0 else { throw SystemError.current("signalfd") }
        fd = FileDescriptor(rawValue: raw)
    }

    deinit {
        fd.close()
    }

    /// The pending signals, in arrival order.
    package func take() -> [Signal] {
        var result: [Signal] = []
        var info = signalfd_siginfo()
        while retryingOnInterrupt({ Glibc.read(fd.rawValue, &info, MemoryLayout<signalfd_siginfo>.size) })
            == MemoryLayout<signalfd_siginfo>.size
        {
            if let signal = Signal(rawValue: Int32(info.ssi_signo)) { result.append(signal) }
        }
        return result
    }
}
