/// A source of events from outside the loop (timers, notifications, sockets).
///
/// The loop subscribes when it starts and disposes the subscription when it stops.
public protocol EventSource {
    /// The events this source produces.
    associatedtype Event

    /// Starts delivering events to `consumer` until the returned disposable is disposed.
    func subscribe(consumer: @escaping Consumer<Event>) -> any Disposable
}
