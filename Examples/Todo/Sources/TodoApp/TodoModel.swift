/// The to-do list: what the daemon keeps and publishes to subscribers.
public struct TodoModel: Codable, Equatable, Sendable {
    /// One item.
    public struct Item: Codable, Equatable, Sendable {
        /// The item's number, unique in the list; `complete` and `remove` events name items by it.
        public var id: Int
        /// What is to be done.
        public var title: String
        /// Whether the item has been completed.
        public var done: Bool

        /// Creates an item, not done unless `done` says so.
        public init(id: Int, title: String, done: Bool = false) {
            self.id = id
            self.title = title
            self.done = done
        }
    }

    /// The items, in the order they were added.
    public var items: [Item]
    /// The id the next added item gets.
    public var nextID: Int

    /// Creates a list, by default empty and numbering items from 1.
    public init(items: [Item] = [], nextID: Int = 1) {
        self.items = items
        self.nextID = nextID
    }
}

/// What clients send: `{"type":"add","title":"milk"}`, `{"type":"complete","id":1}`, `{"type":"remove","id":1}`,
/// `{"type":"clearCompleted"}`.
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
