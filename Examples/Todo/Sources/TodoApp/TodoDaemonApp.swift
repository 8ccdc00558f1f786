import MobiusCore
import MobiusDaemon
import MobiusJSON

/// The to-do list as a typed daemon app: the same socket protocol and config as any mobiusd app.
///
/// - Parameter announce: where announcements go (the daemon's stderr log by default).
public func todoDaemonApp(
    announce: @escaping @Sendable (String) -> Void = { MobiusDaemon.log("todo: \($0)") }
) -> DaemonApp<TodoModel, TodoEvent, TodoEffect> {
    let effects = EffectRouter<TodoEffect, TodoEvent>()
        .routeCase(TodoEffect.announce).to { text in announce(text) }
    var app = DaemonApp(
        name: "todo", model: TodoModel(), update: todoUpdate, initiate: todoInitiate, effects: effects)
    app.exampleEvent = ["add": ["title": "buy milk"]]
    return app
}
