import MobiusSystem

/// The listening control socket as a reactor handler.
final class ControlListener: ReactorHandler {
    let fd: FileDescriptor
    var registration: Reactor.Registration?
    var onReady: () -> Void = {}

    init(fd: FileDescriptor) {
        self.fd = fd
    }

    func reactorReady(_ events: Epoll.Events) {
        onReady()
    }
}
