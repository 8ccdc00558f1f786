import MobiusCore

/// A logger that writes one line per initiate and update call, prefixed with a tag.
public struct SimpleLogger<Model, Event, Effect>: MobiusLogger {
    private let tag: String
    private let consumer: (String) -> Void

    /// Creates a logger writing lines to `consumer` (default: `print`), each starting with `tag`.
    public init(tag: String = "Mobius", consumer: @escaping (String) -> Void = { print($0) }) {
        self.tag = tag
        self.consumer = consumer
    }

    /// Writes `<tag>: Initializing loop`.
    public func willInitiate(model: Model) {
        consumer("\(tag): Initializing loop")
    }

    /// Writes the starting model, then one line per effect that `initiate` dispatched.
    public func didInitiate(model: Model, first: First<Model, Effect>) {
        consumer("\(tag): Loop initialized, starting from model: \(first.model)")
        for effect in first.effects {
            consumer("\(tag): Effect dispatched: \(effect)")
        }
    }

    /// Writes the event received.
    public func willUpdate(model: Model, event: Event) {
        consumer("\(tag): Event received: \(event)")
    }

    /// Writes the new model, when there is one, then one line per effect dispatched.
    public func didUpdate(model: Model, event: Event, next: Next<Model, Effect>) {
        if let newModel = next.model {
            consumer("\(tag): Model updated: \(newModel)")
        }
        for effect in next.effects {
            consumer("\(tag): Effect dispatched: \(effect)")
        }
    }
}
