import MobiusJSON

/// A part that follows the loop's committed state besides the control socket's subscribers (the model on D-Bus).
protocol CommittedStateObserver: AnyObject {
    /// The loop has committed events up to `seq`, or has started at it. `model` is the model's JSON when it changed
    /// (and at the start), `nil` when it did not. Called on the reactor thread, before the pass's replies go out, so
    /// whoever gets a reply can already read the state it led to. It must not block.
    func committed(seq: UInt64, model: JSONValue?)
}
