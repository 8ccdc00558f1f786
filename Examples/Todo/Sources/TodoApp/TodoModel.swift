/// The to-do list: what the daemon keeps and publishes to subscribers.
public struct TodoModel: Codable, Equatable, Sendable {
    /// One item.
    public struct Item: Codable, Equatable, Sendable {
        public var id: Int
        public var title: String
        public var done: Bool

        public init(id: Int, title: String, done: Bool = false) {
            self.id = id
            self.title = title
            self.done = done
        }
    }

    public var items: [Item]
    public var nextID: Int

    public init(items: [Item] = [], nextID: Int = 1) {
        self.items = items
        self.nextID = nextID
    }
}

/// What clients send, in Swift's Codable shape: `{"add":{"title":"milk"}}`, `{"complete":{"id":1}}`,
/// `{"remove":{"id":1}}`, `{"clearCompleted":{}}`.
public enum TodoEvent: Codable, Equatable, Sendable {
    case add(title: String)
    case complete(id: Int)
    case remove(id: Int)
    case clearCompleted
}

/// What the update asks for: an announcement for the people watching (handled by a Swift route).
public enum TodoEffect: Codable, Equatable, Sendable {
    case announce(String)
}
