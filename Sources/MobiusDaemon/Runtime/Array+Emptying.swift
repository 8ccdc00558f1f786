extension Array {
    /// Empties the array and keeps its buffer for reuse, like `removeAll(keepingCapacity: true)`, but the few
    /// elements of a one-at-a-time pass go by `removeLast`, without the generic `replaceSubrange` behind that call
    /// (docs/architecture.md). Larger arrays take `removeAll`. A buffer bigger than `keepingAtMost` elements is let
    /// go instead, so one burst does not keep its memory for good.
    @inline(__always)
    mutating func empty(keepingAtMost limit: Int = .max) {
        if capacity > limit {
            self = []
            return
        }
        if count > 8 {
            removeAll(keepingCapacity: true)
            return
        }
        while !isEmpty { removeLast() }
    }
}
