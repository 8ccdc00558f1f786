/// One part's hold on `ReadinessGate`: the daemon does not report `READY=1` until it is released.
///
/// Release it from any thread once the part is ready or has given up; releasing it again does nothing. Dropping it
/// without releasing keeps the daemon "starting" for good, so a part that owns one releases it on every path.
struct ReadinessHold: Sendable {
    let gate: ReadinessGate?
    let id: UInt64

    init(gate: ReadinessGate?, id: UInt64) {
        self.gate = gate
        self.id = id
    }

    /// Lets the gate go on without this part.
    func release() {
        gate?.release(id)
    }
}
