/// The control server's `log` streams: the source they read from and the connections streaming.
final class LogStreams {
    /// The journal (or the ephemeral window); `nil` until the runtime wires it.
    weak var source: (any LogSource)?
    /// Connections with a stream, in the order they started.
    var connections: [ConnectionID] = []
    /// Streams to go on at the end of this round (started, or new events committed).
    var due: [ConnectionID] = []
}
