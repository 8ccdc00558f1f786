/// A request the pass hands out rather than answers, answered once its outcome is known (docs/protocol.md 1.2): the
/// connection hands over no later line until then (`reload` and `plugin` mark it `awaitingControl`; the reply to
/// `model {"at":N}` is model-sized, which holds its lines as well).
enum ControlCommand: Sendable {
    /// `reload`: reads the config file again and applies it, as SIGHUP does.
    case reload
    /// `plugin {"restart":"NAME"}`: restarts a plugin now, clearing a `failed` state and its restart budget.
    case restartPlugin(String)
    /// `metrics`: the counters and latencies as text, built off the reactor thread.
    case metrics(MetricsFormat)
    /// `model {"at":N}`: answered by the pass already (its reply line), or by a replay of the journal off the
    /// reactor.
    case modelAt(ModelAtAnswer)
}

/// How a pass answered `model {"at":N}`.
enum ModelAtAnswer: Sendable {
    /// At once: N is the head (the model the pass holds), in the future, or recovery has not finished.
    case line([UInt8])
    /// By a replay from the newest snapshot at or before N.
    case replay(HistoryQuery)
}

/// Who carries out control commands (the runtime); `reply` gets the whole reply line, on the reactor thread.
protocol ControlCommandHandler: AnyObject {
    func perform(_ command: ControlCommand, line: Int, reply: @escaping ([UInt8]) -> Void)
}
