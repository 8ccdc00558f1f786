/// The emptied arrays of earlier passes, kept for their capacity: the next pass's queue, outputs and journal
/// records reuse them instead of allocating and growing their own. Kept for the DaemonBench "round-trip" and
/// "ingest" rows (Benchmarks/DaemonBench/README.md, "Loop structure").
struct PassBuffers<Event> {
    /// Past this many elements a buffer is let go, so that one burst does not keep its memory for good.
    static var largestKept: Int { 65_536 }

    private var queue: [PassInput<Event>] = []
    private var outputs: [PassOutput] = []
    private var records: [UInt8] = []

    mutating func takeQueue() -> [PassInput<Event>] { take(&queue) }
    mutating func takeOutputs() -> [PassOutput] { take(&outputs) }
    mutating func takeRecords() -> [UInt8] { take(&records) }

    /// Keeps an array that a pass is done with (its elements are released here), if it is bigger than the one kept.
    mutating func keep(_ array: inout [PassInput<Event>]) { Self.keep(&array, in: &queue) }
    mutating func keep(_ array: inout [PassOutput]) { Self.keep(&array, in: &outputs) }
    mutating func keep(_ array: inout [UInt8]) { Self.keep(&array, in: &records) }

    /// Makes sure the next queue starts with room for `count` inputs (after a big pass whose array went elsewhere).
    mutating func reserveQueue(_ count: Int) {
        guard queue.capacity < count else { return }
        queue = []
        queue.reserveCapacity(min(count, Self.largestKept))
    }

    private func take<Element>(_ array: inout [Element]) -> [Element] {
        var taken: [Element] = []
        swap(&taken, &array)
        return taken
    }

    private static func keep<Element>(_ array: inout [Element], in kept: inout [Element]) {
        array.empty(keepingAtMost: largestKept)
        if kept.capacity < array.capacity { swap(&kept, &array) }
    }
}
