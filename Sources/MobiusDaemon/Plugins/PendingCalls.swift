/// The requests a plugin has not answered yet, by id.
struct PendingCalls {
    private var calls: [Int64: PluginCall] = [:]

    /// How many calls are in flight.
    var count: Int { calls.count }

    /// The call with `id`; setting `nil` removes it.
    subscript(id: Int64) -> PluginCall? {
        get { calls[id] }
        set { calls[id] = newValue }
    }

    /// Every call in flight, oldest id first.
    var entries: [(id: Int64, call: PluginCall)] {
        calls.map { (id: $0.key, call: $0.value) }.sorted { $0.id < $1.id }
    }

    /// Removes and returns the call with `id`, if any.
    @discardableResult
    mutating func removeValue(forKey id: Int64) -> PluginCall? {
        calls.removeValue(forKey: id)
    }

    /// Removes every call.
    mutating func removeAll() {
        calls.removeAll()
    }
}
