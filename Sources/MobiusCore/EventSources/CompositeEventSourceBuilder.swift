/// Builds one event source out of several; subscribing subscribes to each, disposing disposes each.
public struct CompositeEventSourceBuilder<Event> {
    private let sources: [AnyEventSource<Event>]

    /// Creates an empty builder.
    public init() {
        self.sources = []
    }

    private init(sources: [AnyEventSource<Event>]) {
        self.sources = sources
    }

    /// Returns a builder that also includes `source`.
    public func addEventSource<Source: EventSource>(_ source: Source) -> CompositeEventSourceBuilder
    where Source.Event == Event {
        CompositeEventSourceBuilder(sources: sources + [AnyEventSource(source)])
    }

    /// The combined event source.
    public func build() -> AnyEventSource<Event> {
        let sources = self.sources
        return AnyEventSource { consumer in
            CompositeDisposable(disposables: sources.map { $0.subscribe(consumer: consumer) })
        }
    }
}
