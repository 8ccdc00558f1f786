/// Where an event came from. Every applied event gets a seq whatever its source; `status` reports queue depths by
/// kind.
enum EventSourceKind: String, CaseIterable, Sendable {
    /// A client of the control socket.
    case client
    /// A Swift effect handler of a compiled app.
    case effect
    /// A built-in timer (`mobiusd.after`).
    case timer
    /// A plugin (effect events and unsolicited events).
    case plugin
    /// A D-Bus signal or initial read.
    case dbus

    /// Whether the source is an edge of the daemon, held while a plugin's full queue pushes back
    /// (`EdgeBackpressure`); plugins and effect handlers are not, since what the queues wait for comes from them.
    var isEdge: Bool {
        switch self {
        case .client, .timer, .dbus: true
        case .effect, .plugin: false
        }
    }
}
