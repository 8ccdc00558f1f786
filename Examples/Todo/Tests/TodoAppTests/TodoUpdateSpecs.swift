import MobiusCore
import MobiusTest
import Testing
import TodoApp

@Suite("Todo update and initiate (MobiusTest specs)")
struct TodoUpdateSpecs {
    let milk = TodoModel.Item(id: 1, title: "buy milk")

    @Test("add appends a trimmed item with the next id")
    func add() {
        UpdateSpec(todoUpdate)
            .given(TodoModel())
            .when(.add(title: "  buy milk "))
            .then(assertThatNext(hasModel(TodoModel(items: [milk], nextID: 2)), hasNoEffects()))
    }

    @Test("an empty title changes nothing")
    func addEmpty() {
        UpdateSpec(todoUpdate)
            .given(TodoModel())
            .when(.add(title: "   "))
            .then(assertThatNext(hasNothing()))
    }

    @Test("completing the last open item announces it")
    func completeLast() {
        var done = milk
        done.done = true
        UpdateSpec(todoUpdate)
            .given(TodoModel(items: [milk], nextID: 2))
            .when(.complete(id: 1))
            .then(
                assertThatNext(hasModel(TodoModel(items: [done], nextID: 2)), hasOnlyEffects([.announce("all done!")])))
    }

    @Test("several events apply in order; clearCompleted removes done items and says how many")
    func sequence() {
        UpdateSpec(todoUpdate)
            .given(TodoModel())
            .when(.add(title: "a"), .add(title: "b"), .complete(id: 1), .clearCompleted)
            .then(
                assertThatNext(
                    hasModel(TodoModel(items: [TodoModel.Item(id: 2, title: "b")], nextID: 3)),
                    hasExactlyEffects([.announce("cleared 1 completed item(s)")])))
    }

    @Test("unknown ids change nothing")
    func unknownIDs() {
        UpdateSpec(todoUpdate)
            .given(TodoModel(items: [milk], nextID: 2))
            .when(.remove(id: 9))
            .then(assertThatNext(hasNothing()))
    }

    @Test("initiate announces open items")
    func initiate() {
        InitSpec(todoInitiate)
            .when(TodoModel(items: [milk], nextID: 2))
            .then(
                assertThatFirst(
                    hasModel(TodoModel(items: [milk], nextID: 2)), hasEffects([.announce("1 open item(s)")])))
        InitSpec(todoInitiate)
            .when(TodoModel())
            .then(assertThatFirst(hasNoEffects()))
    }
}
