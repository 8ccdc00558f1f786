import MobiusSystem

/// A reactor handler that calls a closure: for parts that own several descriptors (a plugin's pipes and pidfd).
final class ClosureHandler: ReactorHandler {
    private let ready: (Epoll.Events) -> Void

    init(_ ready: @escaping (Epoll.Events) -> Void) {
        self.ready = ready
    }

    func reactorReady(_ events: Epoll.Events) {
        ready(events)
    }
}
