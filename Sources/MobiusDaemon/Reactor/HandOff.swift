/// A value made on one thread and taken, once, by the reactor thread: unlike a closure's capture, taking it leaves no
/// second reference behind, so the taker owns it outright and can move its parts on without copying them.
final class HandOff<Value>: @unchecked Sendable {
    // @unchecked: the making thread stops touching `value` when it posts the hand-off; only the taker reads it.
    private var value: Value?

    init(_ value: Value) {
        self.value = value
    }

    /// The value, the first time; `nil` after that.
    func take() -> Value? {
        let taken = value
        value = nil
        return taken
    }
}
