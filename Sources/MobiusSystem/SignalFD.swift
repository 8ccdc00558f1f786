/// Termination and reload signals delivered as readable events on a descriptor, so the reactor handles them in
/// its epoll loop rather than in an async-signal handler. The corresponding C function is `signalfd`.
package final class SignalFD: Sendable {
    /// The signals the daemon (and `mobiusctl top`) handle. Every thread `SystemThread` starts has them blocked.
    package enum Signal: Int32, Sendable, CaseIterable {
        case terminate = 15  // SIGTERM
        case interrupt = 2  // SIGINT
        case hangUp = 1  // SIGHUP
        /// The terminal changed size (`mobiusctl top` redraws).
        case windowChange = 28  // SIGWINCH
    }

    package let fd: FileDescriptor

    /// Blocks `signals` for the calling thread (and threads it creates later) and opens a descriptor for them.
    /// Threads started earlier by `SystemThread` have them blocked already; any other thread started earlier
    /// would take their default action.
    package init(_ signals: [Signal]) throws(SystemError) {
        fd = FileDescriptor(rawValue: try Syscall.signalFD(signals.map(\.rawValue)))
    }

    deinit {
        fd.close()
    }

    /// The pending signals, in arrival order.
    package func take() -> [Signal] {
        var result: [Signal] = []
        while let number = Syscall.readSignal(fd.rawValue) {
            if let signal = Signal(rawValue: number) { result.append(signal) }
        }
        return result
    }
}
