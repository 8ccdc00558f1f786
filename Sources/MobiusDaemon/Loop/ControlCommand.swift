/// A command that acts on the daemon rather than the loop, answered once its outcome is known
/// (docs/protocol.md 1.2): the connection hands over no later line until then.
enum ControlCommand: Sendable {
    /// `reload`: reads the config file again and applies it, as SIGHUP does.
    case reload
    /// `plugin {"restart":"NAME"}`: restarts a plugin now, clearing a `failed` state and its restart budget.
    case restartPlugin(String)
    /// `metrics`: the counters and latencies as text, built off the reactor thread.
    case metrics(MetricsFormat)
}

/// Who carries out control commands (the runtime); `reply` gets the whole reply line, on the reactor thread.
protocol ControlCommandHandler: AnyObject {
    func perform(_ command: ControlCommand, line: Int, reply: @escaping ([UInt8]) -> Void)
}
