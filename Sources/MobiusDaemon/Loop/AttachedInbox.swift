/// A producer's inbox as the loop sees it once attached: its kind, how full it is, what it dropped, and how to
/// move its items into the loop's queue (with the app's types already applied).
struct AttachedInbox {
    let kind: EventSourceKind
    /// Items waiting now.
    let depth: () -> Int
    /// Items refused because it was full.
    let dropped: () -> UInt64
    /// Moves up to the given number of items into the loop's queue; returns how many it took.
    let drain: (Int) -> Int
}
