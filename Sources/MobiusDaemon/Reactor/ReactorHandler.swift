import MobiusSystem

/// A part of the daemon that owns a descriptor registered with the `Reactor`.
protocol ReactorHandler: AnyObject {
    /// The descriptor is ready for what the registration asked (or has hung up or failed). Called on the reactor
    /// thread.
    func reactorReady(_ events: Epoll.Events)
}
