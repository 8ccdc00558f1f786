/// Producers on the reactor thread waiting for room in the loop's queue, each told once, in the order it asked.
struct RoomWaiters {
    /// Plugins and effect handlers: told once a pass has made room.
    var plugins: [() -> Void] = []
    /// The edges (control-socket clients, D-Bus, timers): told once there is room and no plugin's full queue holds
    /// them (`EdgeBackpressure`).
    var edges: [() -> Void] = []

    var isEmpty: Bool { plugins.isEmpty && edges.isEmpty }
}
