/// A type-erased `EventSource`.
public struct AnyEventSource<Event>: EventSource {
    let subscribeClosure: (@escaping Consumer<Event>) -> any Disposable

    /// Wraps a subscribe function.
    public init(_ subscribe: @escaping (@escaping Consumer<Event>) -> any Disposable) {
        self.subscribeClosure = subscribe
    }

    /// Wraps another event source of the same event type.
    public init<Source: EventSource>(_ source: Source) where Source.Event == Event {
        if let erased = source as? AnyEventSource<Event> {
            self = erased
        } else {
            self.subscribeClosure = source.subscribe
        }
    }

    /// Subscribes through the wrapped subscribe function or event source.
    public func subscribe(consumer: @escaping Consumer<Event>) -> any Disposable {
        subscribeClosure(consumer)
    }
}
