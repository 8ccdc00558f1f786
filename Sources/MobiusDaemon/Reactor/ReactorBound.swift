/// A value that belongs to the reactor thread, carried through another thread (the blocking worker, the waker's
/// queue) and used only once back on the reactor thread.
struct ReactorBound<Value>: @unchecked Sendable {
    // @unchecked: the carrying thread never touches `value`; only the reactor thread, which owns it, does.
    let value: Value
}
