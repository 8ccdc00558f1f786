/// A JSON object: members in insertion order, looked up by key.
///
/// Keys are unique. Setting an existing key replaces its value in place (the member keeps
/// its position); the parser applies the same rule to duplicate keys, so the last value wins
/// at the position of the first occurrence. Lookup is a linear scan for small objects and
/// goes through a hash index once an object has more than ``indexThreshold`` members.
///
/// Equality ignores member order: two objects are equal when they have the same keys with
/// equal values. Encoding preserves order.
public struct JSONObject: Sendable {
    /// Member count above which lookups use a dictionary index.
    public static let indexThreshold = 12

    var storage: [(key: String, value: JSONValue)]
    var index: [String: Int]?

    /// Creates an empty object.
    public init() {
        storage = []
        index = nil
    }

    /// Creates an object from members in order; a repeated key replaces the earlier value
    /// at the earlier position.
    public init(_ members: some Sequence<(String, JSONValue)>) {
        self.init()
        storage.reserveCapacity(members.underestimatedCount)
        for (key, value) in members { self[key] = value }
    }

    /// Creates an object from members the caller guarantees to have unique keys.
    init(uniqueMembers: [(key: String, value: JSONValue)]) {
        storage = uniqueMembers
        index = nil
        if storage.count > JSONObject.indexThreshold { rebuildIndex() }
    }

    /// The number of members.
    public var count: Int { storage.count }

    /// Whether the object has no members.
    public var isEmpty: Bool { storage.isEmpty }

    /// The keys in member order.
    public var keys: [String] { storage.map(\.key) }

    /// The members in order.
    public var members: [(key: String, value: JSONValue)] { storage }

    /// The position of `key` among the members, or `nil` when absent.
    public func position(of key: String) -> Int? {
        if let index { return index[key] }
        for position in storage.indices where storage[position].key == key { return position }
        return nil
    }

    /// The value for `key`; setting `nil` removes the member, setting a value replaces it in
    /// place or appends a new member.
    public subscript(key: String) -> JSONValue? {
        get {
            guard let position = position(of: key) else { return nil }
            return storage[position].value
        }
        set {
            if let newValue {
                if let position = position(of: key) {
                    storage[position].value = newValue
                } else {
                    append(key: key, value: newValue)
                }
            } else {
                removeValue(forKey: key)
            }
        }
    }

    /// Removes the member for `key` and returns its value, or `nil` when absent. O(n).
    @discardableResult
    public mutating func removeValue(forKey key: String) -> JSONValue? {
        guard let position = position(of: key) else { return nil }
        let removed = storage.remove(at: position).value
        if index != nil { rebuildIndex() }
        return removed
    }

    mutating func append(key: String, value: JSONValue) {
        storage.append((key, value))
        if index != nil {
            index![key] = storage.count - 1
        } else if storage.count > JSONObject.indexThreshold {
            rebuildIndex()
        }
    }

    private mutating func rebuildIndex() {
        guard storage.count > JSONObject.indexThreshold else {
            index = nil
            return
        }
        var built = [String: Int](minimumCapacity: storage.count)
        for (position, member) in storage.enumerated() { built[member.key] = position }
        index = built
    }
}

extension JSONObject: Hashable {
    /// Same keys with equal values, in any order.
    public static func == (lhs: JSONObject, rhs: JSONObject) -> Bool {
        guard lhs.count == rhs.count else { return false }
        for (position, member) in lhs.storage.enumerated() {
            // Fast path: same key at the same position.
            if position < rhs.storage.count, rhs.storage[position].key == member.key {
                guard rhs.storage[position].value == member.value else { return false }
                continue
            }
            guard let other = rhs[member.key], other == member.value else { return false }
        }
        return true
    }

    /// Order-independent hash, consistent with `==`.
    public func hash(into hasher: inout Hasher) {
        var combined = 0
        for member in storage {
            var memberHasher = Hasher()
            memberHasher.combine(member.key)
            memberHasher.combine(member.value)
            combined = combined &+ memberHasher.finalize()
        }
        hasher.combine(count)
        hasher.combine(combined)
    }
}

extension JSONObject: Sequence {
    /// Iterates members in order.
    public func makeIterator() -> IndexingIterator<[(key: String, value: JSONValue)]> {
        storage.makeIterator()
    }
}

extension JSONObject: ExpressibleByDictionaryLiteral {
    /// Creates an object from a literal, keeping the literal's order.
    public init(dictionaryLiteral elements: (String, JSONValue)...) {
        self.init(elements)
    }
}
