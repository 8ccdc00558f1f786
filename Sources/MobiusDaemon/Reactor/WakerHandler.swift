import MobiusSystem

/// Runs what other threads posted.
final class WakerHandler: ReactorHandler {
    let waker: ReactorWaker

    init(waker: ReactorWaker) {
        self.waker = waker
    }

    func reactorReady(_ events: Epoll.Events) {
        for work in waker.takePosted() { work() }
    }
}
