import MobiusCore
import MobiusDaemon
import MobiusJSON

/// The to-do example's version, which `todo-daemon --version` shows beside the daemon kit's.
public let todoVersion = "1.0.0"

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
    // Its own program: `todo-daemon --help` and `--version` describe the to-do list, not mobiusd's counter.
    app.summary = """
        Keeps a to-do list. Events: {"type":"add","title":"…"}, {"type":"complete","id":N},
        {"type":"remove","id":N}, {"type":"clearCompleted"}; the model is {"items":[{"id":N,"title":"…","done":false}],"nextID":N}.
        """
    app.version = todoVersion
    app.exampleEvent = ["type": "add", "title": "buy milk"]
    return app
}
