import MobiusSystem

/// SIGTERM, SIGINT and SIGHUP as a reactor handler (a signalfd), so signals are handled in the loop, not in an
/// async-signal context.
final class SignalHandler: ReactorHandler {
    let signals: SignalFD
    var onSignal: (SignalFD.Signal) -> Void = { _ in }

    init(signals: SignalFD) {
        self.signals = signals
    }

    func reactorReady(_ events: Epoll.Events) {
        for signal in signals.take() { onSignal(signal) }
    }
}
