import Dispatch
import Foundation
import MobiusCore

// One scenario per process run, so peak RSS belongs to that scenario alone.
// Usage: mobius-bench <loop|roundtrip|roundtrip-mirror|controller> [events]

enum CounterEvent: Sendable { case increment, ping(Int) }
enum CounterEffect: Equatable, Sendable { case pong, echo(Int) }

func now() -> UInt64 { DispatchTime.now().uptimeNanoseconds }

func peakRSSKilobytes() -> Int {
    guard let status = try? String(contentsOfFile: "/proc/self/status", encoding: .utf8) else { return -1 }
    for line in status.split(separator: "\n") where line.hasPrefix("VmHWM:") {
        return Int(line.split(separator: " ").dropFirst().first ?? "") ?? -1
    }
    return -1
}

func counterUpdate(model: Int, event: CounterEvent) -> Next<Int, CounterEffect> {
    .next(model + 1)
}

/// Plain loop: events dispatched from the test thread, trivial Int counter, no effects.
func benchLoop(_ count: Int) -> Double {
    let loop = Mobius.loop(update: counterUpdate, effectHandler: EffectRouter<CounterEffect, CounterEvent>())
        .start(from: 0)
    let start = now()
    for _ in 0..<count { loop.dispatchEvent(.increment) }
    let elapsed = now() - start
    precondition(loop.latestModel == count, "loop lost events: \(loop.latestModel)")
    loop.dispose()
    return Double(count) / (Double(elapsed) / 1e9)
}

/// Round trips: each event's update emits one effect, routed through EffectRouter to a handler that sends an event
/// back, until `count` round trips are done.
func benchRoundTrip(_ count: Int, mirror: Bool) -> Double {
    let update = { (model: Int, event: CounterEvent) -> Next<Int, CounterEffect> in
        guard model < count else { return .noChange }
        return .next(model + 1, effects: [mirror ? .echo(model) : .pong])
    }
    var router = EffectRouter<CounterEffect, CounterEvent>()
    if mirror {
        router = router.routeCase(CounterEffect.echo).toEvent { .ping($0) }
    } else {
        router = router.routeCase(CounterEffect.pong).toEvent { .increment }
    }
    let loop = Mobius.loop(update: update, effectHandler: router).start(from: 0)
    let start = now()
    loop.dispatchEvent(.increment)
    let elapsed = now() - start
    precondition(loop.latestModel == count, "round trips lost: \(loop.latestModel)")
    loop.dispose()
    return Double(count) / (Double(elapsed) / 1e9)
}

/// Cross-thread: one producer thread dispatches through MobiusController; the loop runs on its queue.
func benchController(_ count: Int) -> Double {
    let done = DispatchSemaphore(value: 0)
    let update = { (model: Int, event: CounterEvent) -> Next<Int, CounterEffect> in
        if model + 1 == count { done.signal() }
        return .next(model + 1)
    }
    let controller = Mobius.loop(update: update, effectHandler: EffectRouter<CounterEffect, CounterEvent>())
        .makeController(from: 0)
    controller.start()
    let start = now()
    let producer = Thread {
        for _ in 0..<count { controller.dispatchEvent(.increment) }
    }
    producer.start()
    done.wait()
    let elapsed = now() - start
    // update signals before the loop stores its model; stop waits for the loop queue, after which the model is final.
    controller.stop()
    precondition(controller.model == count)
    return Double(count) / (Double(elapsed) / 1e9)
}

let arguments = CommandLine.arguments
let scenario = arguments.count > 1 ? arguments[1] : "loop"
let count = arguments.count > 2 ? Int(arguments[2]) ?? 1_000_000 : 1_000_000
let rate: Double
switch scenario {
case "loop": rate = benchLoop(count)
case "roundtrip": rate = benchRoundTrip(count, mirror: false)
case "roundtrip-mirror": rate = benchRoundTrip(count, mirror: true)
case "controller": rate = benchController(count)
default:
    FileHandle.standardError.write("unknown scenario \(scenario)\n".data(using: .utf8)!)
    exit(2)
}
print(
    "{\"scenario\":\"\(scenario)\",\"events\":\(count),\"perSecond\":\(Int(rate)),\"peakRSSKB\":\(peakRSSKilobytes())}")
