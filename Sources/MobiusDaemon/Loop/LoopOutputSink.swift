/// Where a committed pass's output goes: the control server, which owns the connections.
protocol LoopOutputSink: AnyObject {
    /// Replies and trace lines, in order. `writeNow`: nothing else waits in the loop's queue, so the replies may
    /// go out before the rest of the round.
    func deliver(_ outputs: [PassOutput], writeNow: Bool)
    /// The newest model line for these subscribers (latest-wins: it replaces one not yet written).
    func publishModel(_ line: [UInt8], to connections: [ConnectionID])
    /// One trace line (a model or an effect) for each of these monitors.
    func trace(_ line: [UInt8], to connections: [ConnectionID])
    /// Starts a connection's `log` stream, once the pass that answered its `log` request is out.
    func startLog(_ connection: ConnectionID, _ start: LogStreamStart)
}
