import MobiusJSON

/// How one JSON value differs from another, by JSON Pointer: members and elements added, removed or changed
/// (`replay`'s report of two models). Objects are compared member by member, arrays element by element by index;
/// any other difference (another type, another scalar) changes the value at that pointer.
struct ModelDiff: Equatable {
    enum Change: Equatable {
        case added(JSONPointer, JSONValue)
        case removed(JSONPointer, JSONValue)
        case changed(JSONPointer, from: JSONValue, to: JSONValue)
    }

    /// The first `limit` changes, in document order (an object's members in `from`'s order, then those only in
    /// `to`).
    private(set) var changes: [Change] = []
    /// How many changes there are in all.
    private(set) var count = 0

    /// The changes that turn `from` into `to`.
    init(from: JSONValue, to: JSONValue, limit: Int = 50) {
        compare(from, to, at: JSONPointer(tokens: []), limit: limit)
    }

    // Recursive: a model nests at most 512 levels (the daemon refuses deeper ones), far within a thread's stack.
    private mutating func compare(_ from: JSONValue, _ to: JSONValue, at pointer: JSONPointer, limit: Int) {
        switch (from, to) {
        case (.object(let old), .object(let new)):
            for (key, value) in old {
                if let other = new[key] {
                    compare(value, other, at: pointer.appending(key), limit: limit)
                } else {
                    note(.removed(pointer.appending(key), value), limit: limit)
                }
            }
            for (key, value) in new where old[key] == nil {
                note(.added(pointer.appending(key), value), limit: limit)
            }
        case (.array(let old), .array(let new)):
            for index in 0..<min(old.count, new.count) {
                compare(old[index], new[index], at: pointer.appending(String(index)), limit: limit)
            }
            for index in new.count..<max(old.count, new.count) {
                note(.removed(pointer.appending(String(index)), old[index]), limit: limit)
            }
            for index in old.count..<max(old.count, new.count) {
                note(.added(pointer.appending(String(index)), new[index]), limit: limit)
            }
        default:
            if from != to { note(.changed(pointer, from: from, to: to), limit: limit) }
        }
    }

    private mutating func note(_ change: Change, limit: Int) {
        count += 1
        if changes.count < limit { changes.append(change) }
    }
}
