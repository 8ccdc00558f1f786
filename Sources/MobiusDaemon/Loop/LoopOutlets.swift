import MobiusJSON

/// Where the loop's committed passes go, given to `DaemonLoop.start`. These parts are made after the loop, because
/// each of them needs the loop's way in (`port`, `pluginPort`, `enqueue`); nothing leaves the loop before it starts.
final class LoopOutlets<Model, Event, Effect> {
    /// Replies, traces, model publications and `log` streams: the control server.
    let sink: any LoopOutputSink
    /// Runs the effects of committed passes; `nil` discards them (a loop with no handlers, in tests).
    let dispatcher: EffectDispatcher<Model, Event, Effect>?
    /// The update plugin's way of computing a pass's outcomes; `nil` calls the app's update in the pass. Given
    /// exactly when the app's update is a plugin.
    let externalUpdate: ExternalUpdate<Model, Event, Effect>?
    /// The `status` members of the parts around the loop (connections, plugins, the journal, memory, …).
    let statusMembers: () -> [(String, JSONValue)]
    /// Follows the committed seq and model (the model on D-Bus); `nil` when nothing does.
    let observer: (any CommittedStateObserver)?

    init(
        sink: any LoopOutputSink, dispatcher: EffectDispatcher<Model, Event, Effect>?,
        externalUpdate: ExternalUpdate<Model, Event, Effect>?, statusMembers: @escaping () -> [(String, JSONValue)],
        observer: (any CommittedStateObserver)?
    ) {
        self.sink = sink
        self.dispatcher = dispatcher
        self.externalUpdate = externalUpdate
        self.statusMembers = statusMembers
        self.observer = observer
    }
}
