import MobiusCore
import MobiusTest
import Synchronization
import Testing
import TodoApp

@Suite("Todo with its real effect handler (exhaustive TestLoop)")
struct TodoTestLoopTests {
    final class Announcements: Sendable {
        private let lines = Mutex<[String]>([])
        func append(_ line: String) { lines.withLock { $0.append(line) } }
        var all: [String] { lines.withLock { $0 } }
    }

    @Test("completing everything runs the announce handler once, and every effect is asserted")
    func announce() {
        let heard = Announcements()
        let router = EffectRouter<TodoEffect, TodoEvent>()
            .routeCase(TodoEffect.announce).to { heard.append($0) }
        let loop = TestLoop(update: todoUpdate, model: TodoModel(), effectHandler: router)
        loop.send(.add(title: "a"))
        loop.send(.complete(id: 1))
        loop.exhaust()
        loop.assertEffects([.announce("all done!")])
        #expect(loop.model.items.allSatisfy { $0.done })
        loop.finish()
        #expect(heard.all == ["all done!"])
    }
}
