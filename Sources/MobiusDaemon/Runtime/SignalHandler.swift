import MobiusSystem

/// SIGTERM, SIGINT and SIGHUP as a reactor handler (a signalfd), so signals are handled in the loop, not in an
/// async-signal context.
final class SignalHandler: ReactorHandler {
    let signals: SignalFD
    let onSignal: (SignalFD.Signal) -> Void

    init(signals: SignalFD, onSignal: @escaping (SignalFD.Signal) -> Void) {
        self.signals = signals
        self.onSignal = onSignal
    }

    func reactorReady(_ events: Epoll.Events) {
        for signal in signals.take() { onSignal(signal) }
    }
}
