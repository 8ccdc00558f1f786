/// Members of a keyed container being encoded, in first-write order; a key written twice
/// keeps its position and takes the last value.
final class ObjectBox {
    var keys: [String] = []
    var items: [EncodedItem] = []
    private var positions: [String: Int] = [:]
    /// The case whose associated values a synthesized enum `encode(to:)` is writing under it, for
    /// ``JSONEnumShape/typeTagged``.
    var enumCase: String?

    func set(_ key: String, _ item: EncodedItem) {
        if let position = positions[key] {
            items[position] = item
        } else {
            positions[key] = keys.count
            keys.append(key)
            items.append(item)
        }
    }

    func item(for key: String) -> EncodedItem? {
        positions[key].map { items[$0] }
    }
}
