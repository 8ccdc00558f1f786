/// The requests a plugin has not answered yet, by id.
///
/// An open-addressing table indexed by an id's low bits, with Robin Hood linear probing: a member never sits
/// farther from its home slot than the one it passed, so a lookup stops early and a removal shifts back only the
/// members displaced behind it. The host hands out ids one after another, so the ids in flight sit in their home
/// slots and each operation touches one or two slots, where a `Dictionary<Int64, PluginCall>` hashes the id with
/// SipHash on every insert, lookup and removal (measured in Benchmarks/PluginDaemonBench/README.md).
///
/// Its size follows the number of calls in flight (at most the plugin's `concurrency` plus a few), not the spread
/// of their ids, so an effect that hangs until its timeout costs one slot.
struct PendingCalls {
    /// An id no request has (ids start at 0).
    private static let empty: Int64 = -1

    /// The slots' ids (`empty` where free), kept apart from the calls so a probe scans plain integers.
    private var ids: [Int64]
    private var calls: [PluginCall?]
    private var mask: Int { ids.count - 1 }
    /// How many calls are in flight.
    private(set) var count = 0

    init() {
        ids = Array(repeating: Self.empty, count: 16)
        calls = Array(repeating: nil, count: 16)
    }

    /// The call with `id`; setting `nil` removes it.
    subscript(id: Int64) -> PluginCall? {
        get {
            guard let slot = slot(of: id) else { return nil }
            return calls[slot]
        }
        set {
            if let newValue {
                insert(newValue, id: id)
            } else {
                removeValue(forKey: id)
            }
        }
    }

    /// Every call in flight, oldest id first.
    var entries: [(id: Int64, call: PluginCall)] {
        var found: [(id: Int64, call: PluginCall)] = []
        found.reserveCapacity(count)
        for slot in ids.indices where ids[slot] != Self.empty {
            if let call = calls[slot] { found.append((ids[slot], call)) }
        }
        return found.sorted { $0.id < $1.id }
    }

    /// Removes and returns the call with `id`, if any.
    @discardableResult
    mutating func removeValue(forKey id: Int64) -> PluginCall? {
        guard var hole = slot(of: id) else { return nil }
        let removed = calls[hole]
        count -= 1
        // Backward shift: the members after it that sit past their home move back one slot, up to the first empty
        // slot or member at home.
        var next = (hole + 1) & mask
        while ids[next] != Self.empty && distance(of: next) > 0 {
            ids[hole] = ids[next]
            calls[hole] = calls[next]
            hole = next
            next = (next + 1) & mask
        }
        ids[hole] = Self.empty
        calls[hole] = nil
        return removed
    }

    /// Removes every call.
    mutating func removeAll() {
        self = PendingCalls()
    }

    private static func home(_ id: Int64, _ mask: Int) -> Int {
        Int(truncatingIfNeeded: id) & mask
    }

    /// How far the member in `slot` sits from its home slot.
    private func distance(of slot: Int) -> Int {
        (slot - Self.home(ids[slot], mask)) & mask
    }

    private func slot(of id: Int64) -> Int? {
        var slot = Self.home(id, mask)
        var travelled = 0
        // A member nearer its home than `travelled` means `id` would have taken its place: it is not here.
        while ids[slot] != Self.empty && distance(of: slot) >= travelled {
            if ids[slot] == id { return slot }
            slot = (slot + 1) & mask
            travelled += 1
        }
        return nil
    }

    private mutating func insert(_ call: PluginCall, id: Int64) {
        if let slot = slot(of: id) {
            calls[slot] = call
            return
        }
        if (count + 1) * 2 > ids.count { grow() }
        var id = id
        var call: PluginCall? = call
        var slot = Self.home(id, mask)
        var travelled = 0
        while ids[slot] != Self.empty {
            // Robin Hood: the one nearer its home gives up the slot and goes on probing.
            let resident = distance(of: slot)
            if resident < travelled {
                swap(&id, &ids[slot])
                swap(&call, &calls[slot])
                travelled = resident
            }
            slot = (slot + 1) & mask
            travelled += 1
        }
        ids[slot] = id
        calls[slot] = call
        count += 1
    }

    /// Doubles the table and puts every call back (at most half full after).
    private mutating func grow() {
        let old = zip(ids, calls).filter { $0.0 != Self.empty }
        let size = ids.count * 2
        ids = Array(repeating: Self.empty, count: size)
        calls = Array(repeating: nil, count: size)
        count = 0
        for (id, call) in old {
            if let call { insert(call, id: id) }
        }
    }
}
