/// Where a committed pass's output goes: the control server, which owns the connections.
protocol LoopOutputSink: AnyObject {
    /// Replies and trace lines, in order.
    func deliver(_ outputs: [PassOutput])
    /// The newest model line for these subscribers (latest-wins: it replaces one not yet written).
    func publishModel(_ line: [UInt8], to connections: [ConnectionID])
    /// One trace line (a model or an effect) for each of these monitors.
    func trace(_ line: [UInt8], to connections: [ConnectionID])
}
