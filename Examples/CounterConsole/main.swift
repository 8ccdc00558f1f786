// The Mobius README counter as a console program (`swift run counter-console`): the library without the daemon.
// Type `+` / `increment` or `-` / `decrement`, one per line; `q` or end of input quits.
import MobiusCore
import MobiusExtras

typealias CounterModel = Int

enum CounterEvent {
    case increment
    case decrement
}

enum CounterEffect {
    case playSound
}

func update(model: CounterModel, event: CounterEvent) -> Next<CounterModel, CounterEffect> {
    switch event {
    case .increment:
        return .next(model + 1)
    case .decrement:
        return model == 0 ? .dispatchEffects([.playSound]) : .next(model - 1)
    }
}

let effectHandler = EffectRouter<CounterEffect, CounterEvent>()
    .routeCase(CounterEffect.playSound).to { print("\u{7}beep! (the counter cannot go below 0)") }
    .asConnectable

print("Mobius counter demo. Type + or - (or increment / decrement), q to quit.")
let loop = Mobius.loop(update: update, effectHandler: effectHandler).start(from: 0)
loop.addObserver { model in print("counter: \(model)") }

input: while let line = readLine() {
    switch line.split(whereSeparator: { $0 == " " || $0 == "\t" }).first ?? "" {
    case "+", "increment": loop.dispatchEvent(.increment)
    case "-", "decrement": loop.dispatchEvent(.decrement)
    case "q", "quit": break input
    case "": continue
    default: print("unknown input \"\(line)\": type +, - or q")
    }
}
loop.dispose()
