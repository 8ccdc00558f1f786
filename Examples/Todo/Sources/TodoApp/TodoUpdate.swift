import MobiusCore

/// The pure update function of the to-do app.
public func todoUpdate(model: TodoModel, event: TodoEvent) -> Next<TodoModel, TodoEffect> {
    var model = model
    switch event {
    case .add(let title):
        let trimmed = title.trimmingSpaces()
        guard !trimmed.isEmpty else { return .noChange }
        model.items.append(TodoModel.Item(id: model.nextID, title: trimmed))
        model.nextID += 1
        return .next(model)
    case .complete(let id):
        guard let index = model.items.firstIndex(where: { $0.id == id }), !model.items[index].done else {
            return .noChange
        }
        model.items[index].done = true
        let remaining = model.items.filter { !$0.done }.count
        return remaining == 0
            ? .next(model, effects: [.announce("all done!")])
            : .next(model)
    case .remove(let id):
        guard model.items.contains(where: { $0.id == id }) else { return .noChange }
        model.items.removeAll { $0.id == id }
        return .next(model)
    case .clearCompleted:
        let completed = model.items.filter(\.done).count
        guard completed > 0 else { return .noChange }
        model.items.removeAll(where: \.done)
        return .next(model, effects: [.announce("cleared \(completed) completed item(s)")])
    }
}

/// Runs on start-up (and after a restart) on the recovered model: announce what is pending.
public func todoInitiate(model: TodoModel) -> First<TodoModel, TodoEffect> {
    let open = model.items.filter { !$0.done }.count
    return First(model: model, effects: open > 0 ? [.announce("\(open) open item(s)")] : [])
}

extension String {
    fileprivate func trimmingSpaces() -> String {
        let characters = Array(self)
        guard let first = characters.firstIndex(where: { !$0.isWhitespace }),
            let last = characters.lastIndex(where: { !$0.isWhitespace })
        else { return "" }
        return String(characters[first...last])
    }
}
