import MobiusSystem

/// The part of the control server a connection reports readiness to.
protocol ClientConnectionOwner: AnyObject {
    func connectionReady(_ connection: ClientConnection, _ events: Epoll.Events)
}
