import MobiusCore

enum CounterEvent: Equatable {
    case increment
    case decrement
}

enum CounterEffect: Equatable {
    case playSound
}

/// Counts up and down; decrementing at zero leaves the count alone and plays an error sound.
func counterUpdate(model: Int, event: CounterEvent) -> Next<Int, CounterEffect> {
    switch event {
    case .increment:
        .next(model + 1)
    case .decrement:
        model == 0 ? .dispatchEffects([.playSound]) : .next(model - 1)
    }
}
