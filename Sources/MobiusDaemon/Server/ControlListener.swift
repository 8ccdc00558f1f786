import MobiusSystem

/// The listening control socket as a reactor handler.
final class ControlListener: ReactorHandler {
    let fd: FileDescriptor
    var registration: Reactor.Registration?
    /// Accepts the clients waiting (the control server's accept loop).
    private let onReady: () -> Void

    init(fd: FileDescriptor, onReady: @escaping () -> Void) {
        self.fd = fd
        self.onReady = onReady
    }

    func reactorReady(_ events: Epoll.Events) {
        onReady()
    }
}
