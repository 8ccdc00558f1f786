/// The control server's way into the loop, as closures made where the app's types are known: the server is not
/// generic over them, so its per-request code is compiled once, fully specialized, instead of going through
/// generic metadata at run time.
struct LoopPort {
    /// How many more inputs the loop's queue takes now (none while plugins push back on the edges).
    let room: () -> Int
    /// How many more commands the loop's queue takes now (plugins' push-back holds events, not commands).
    let commandRoom: () -> Int
    /// Queues an input for the next pass.
    let enqueue: (consuming ClientInput) -> Void
    /// Calls the closure once, after the next pass has made room.
    let notifyWhenRoom: (@escaping () -> Void) -> Void
    /// The loop reads a client's compact event only as text (`RequestState.eventsAsText`).
    let eventsAsText: Bool
}
