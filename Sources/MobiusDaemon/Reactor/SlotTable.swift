/// Values under keys that are never reused while the process lives (a slot index and how often that slot has been
/// reused), so a lookup is an array index and a compare instead of hashing: the reactor looks up a handler, and
/// the server a connection, for every request.
struct SlotTable<Value> {
    private struct Slot {
        var generation: UInt32
        var value: Value?
    }

    private var slots: [Slot] = []
    private var free: [Int] = []
    /// Values stored now.
    private(set) var count = 0

    /// Stores the value `make` builds for its new key, and returns it.
    mutating func insert(_ make: (UInt64) -> Value) -> Value {
        let index: Int
        if let reused = free.popLast() {
            index = reused
            slots[index].generation &+= 1
        } else {
            index = slots.count
            slots.append(Slot(generation: 0, value: nil))
        }
        let value = make(UInt64(slots[index].generation) << 32 | UInt64(index))
        slots[index].value = value
        count += 1
        return value
    }

    /// The value under `key`, or `nil` when it was removed (or never existed).
    subscript(key: UInt64) -> Value? {
        let index = Int(truncatingIfNeeded: key & 0xFFFF_FFFF)
        guard index < slots.count, slots[index].generation == UInt32(truncatingIfNeeded: key >> 32) else { return nil }
        return slots[index].value
    }

    /// Removes the value under `key`; returns it, or `nil` when there was none.
    @discardableResult
    mutating func remove(_ key: UInt64) -> Value? {
        let index = Int(truncatingIfNeeded: key & 0xFFFF_FFFF)
        guard index < slots.count, slots[index].generation == UInt32(truncatingIfNeeded: key >> 32),
            let value = slots[index].value
        else { return nil }
        slots[index].value = nil
        free.append(index)
        count -= 1
        return value
    }

    /// Every stored value, in slot order.
    var values: [Value] { slots.compactMap(\.value) }
}
