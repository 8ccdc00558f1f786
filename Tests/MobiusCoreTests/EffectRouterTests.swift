import Dispatch
import Foundation
import MobiusCore
import Synchronization
import Testing

enum MediaEffect: Equatable, Sendable {
    case load(id: Int)
    case seek(track: String, seconds: Int)
    case log(String)
    case show(String)
    case stop
    case pause
}

/// A payload-less effect enum that is not `Equatable` (one case carries a closure).
enum SoundEffect {
    case beep
    case chime
    case custom(() -> Void)
}

/// An enum whose description does not name the case, as user types often have.
enum LabelledEffect: Equatable, CustomStringConvertible {
    case refresh
    case reset
    case open(url: String)

    var description: String { "LabelledEffect" }
}

/// Runs `effects` through a loop whose effect handler is `router`, collecting the events the router sends back.
private func runEffects<Effect>(
    _ effects: [Effect],
    through router: EffectRouter<Effect, String>,
    expectEvents count: Int = 0,
    thenWait settled: () -> Void = {}
) -> [String] {
    let events = Recorder<String>()
    let loop = Mobius.loop(
        update: { (model: Int, event: String) in
            events.append(event)
            return .next(model + 1)
        },
        effectHandler: router
    )
    .start(from: 0, effects: effects)
    defer { loop.dispose() }
    events.wait(forCount: count)
    // Before the loop is disposed: disposing cancels effects still queued for their target queue.
    settled()
    return events.values
}

@Suite("EffectRouter", .serialized, .timeLimit(.scaled(minutes: 1)))
struct EffectRouterTests {
    @Test("routeCase with a payload extracts it, and tells apart cases with the same payload type")
    func routeCaseWithPayload() {
        let log = Recorder<String>()
        let router = EffectRouter<MediaEffect, String>()
            .routeCase(MediaEffect.load).to { id in log.append("load \(id)") }
            .routeCase(MediaEffect.seek).to { track, seconds in log.append("seek \(track) \(seconds)") }
            .routeCase(MediaEffect.log).to { text in log.append("log \(text)") }
            .routeCase(MediaEffect.show).to { text in log.append("show \(text)") }
            .routeCase(MediaEffect.stop).to { log.append("stop") }
            .routeCase(MediaEffect.pause).to { log.append("pause") }

        let (_, reports) = recordingMisuse {
            _ = runEffects(
                [.show("a"), .load(id: 7), .log("b"), .seek(track: "intro", seconds: 42), .stop, .pause, .log("c")],
                through: router
            )
        }

        #expect(reports.isEmpty)
        #expect(log.values == ["show a", "load 7", "log b", "seek intro 42", "stop", "pause", "log c"])
    }

    @Test("a non-Equatable enum routes payload cases with routeCase and the others with routeEffects")
    func routeNonEquatable() {
        let log = Recorder<String>()
        let isBeep = { (effect: SoundEffect) -> Void? in
            guard case .beep = effect else { return nil }
            return ()
        }
        let isChime = { (effect: SoundEffect) -> Void? in
            guard case .chime = effect else { return nil }
            return ()
        }
        let router = EffectRouter<SoundEffect, String>()
            .routeEffects(withParameters: isBeep).to { log.append("beep") }
            .routeEffects(withParameters: isChime).to { log.append("chime") }
            .routeCase(SoundEffect.custom).to { play in play() }

        let (_, reports) = recordingMisuse {
            _ = runEffects([.chime, .beep, .custom({ log.append("custom") }), .chime], through: router)
        }

        #expect(reports.isEmpty)
        #expect(log.values == ["chime", "beep", "custom", "chime"])
    }

    @Test("routeCase without a payload works when the enum's description does not name the case")
    func routeCasePayloadlessCustomDescription() {
        let log = Recorder<String>()
        let router = EffectRouter<LabelledEffect, String>()
            .routeCase(LabelledEffect.refresh).to { log.append("refresh") }
            .routeCase(LabelledEffect.reset).to { log.append("reset") }
            .routeCase(LabelledEffect.open).to { url in log.append("open \(url)") }

        let (_, reports) = recordingMisuse {
            _ = runEffects([.reset, .open(url: "x"), .refresh], through: router)
        }

        #expect(reports.isEmpty, "\(reports)")
        #expect(log.values == ["reset", "open x", "refresh"])
    }

    @Test("routeEffects(equalTo:) hands the effect itself to the handler")
    func routeEffectsEqualTo() {
        let log = Recorder<MediaEffect>()
        let router = EffectRouter<MediaEffect, String>()
            .routeEffects(equalTo: .load(id: 1)).to { log.append($0) }
            .routeEffects(equalTo: .load(id: 2)).to { _ in log.append(.stop) }

        let (_, reports) = recordingMisuse { _ = runEffects([.load(id: 2), .load(id: 1)], through: router) }

        #expect(reports.isEmpty)
        #expect(log.values == [.stop, .load(id: 1)])
    }

    @Test("routeEffects(withParameters:) routes what the extractor accepts")
    func routeEffectsWithParameters() {
        let router = EffectRouter<Int, String>()
            .routeEffects(withParameters: { $0.isMultiple(of: 2) ? $0 / 2 : nil }).toEvent { "half \($0)" }
            .routeEffects(withParameters: { $0.isMultiple(of: 2) ? nil : $0 }).toEvent { "odd \($0)" }

        let events = runEffects([4, 3, 10], through: router, expectEvents: 3)

        #expect(events == ["half 2", "odd 3", "half 5"])
    }

    @Test("toEvent sends the closure's event, or nothing for nil")
    func toEvent() {
        let router = EffectRouter<Int, String>()
            .routeEffects(withParameters: { $0 }).toEvent { $0 > 0 ? "positive \($0)" : nil }

        let events = runEffects([1, -1, 2], through: router, expectEvents: 2)

        #expect(events == ["positive 1", "positive 2"])
    }

    @Test("an EffectHandler sends several events and ends; events after end are dropped")
    func effectHandlerType() {
        struct Countdown: EffectHandler {
            let afterEnd = Counter()
            func handle(_ from: Int, _ callback: EffectCallback<String>) -> any Disposable {
                for value in stride(from: from, through: 1, by: -1) {
                    callback.send("tick \(value)")
                }
                callback.end()
                callback.send("too late")
                if callback.isEnded { afterEnd.increment() }
                return AnonymousDisposable {}
            }
        }
        let handler = Countdown()
        let router = EffectRouter<Int, String>().routeEffects(withParameters: { $0 }).to(handler)

        let events = runEffects([3], through: router, expectEvents: 3)

        #expect(events == ["tick 3", "tick 2", "tick 1"])
        #expect(handler.afterEnd.current == 1)
    }

    @Test("disposing the loop disposes handler work that has not ended, and not work that ended")
    func disposingLoopDisposesRunningEffects() {
        let disposed = Recorder<Int>()
        let callbacks = Shared<[Int: EffectCallback<String>]>([:])
        let router = EffectRouter<Int, String>()
            .routeEffects(withParameters: { $0 })
            .to { id, callback in
                callbacks.withLock { $0[id] = callback }
                if id == 1 { callback.end(with: "one done") }
                return AnonymousDisposable { disposed.append(id) }
            }
        let events = Recorder<String>()
        let loop = Mobius.loop(
            update: { (model: Int, event: String) in
                events.append(event)
                return .noChange
            },
            effectHandler: router
        )
        .start(from: 0, effects: [1, 2, 3])
        #expect(events.values == ["one done"])

        loop.dispose()

        #expect(disposed.values.sorted() == [2, 3])
        // A handler that sends after the loop was disposed is ignored.
        callbacks.value[2]?.send("late")
        #expect(events.values == ["one done"])
    }

    @Test("to(Connectable) connects once, gets every matching effect, sends events, is disposed with the loop")
    func toConnectable() {
        let target = ProbeConnectable<String, String>()
        let router = EffectRouter<MediaEffect, String>()
            .routeCase(MediaEffect.log).to(target)
            .routeCase(MediaEffect.stop).to { _ = target.send("stopped") }
        let events = Recorder<String>()
        let loop = Mobius.loop(
            update: { (model: Int, event: String) in
                events.append(event)
                return .noChange
            },
            effectHandler: router
        )
        .start(from: 0, effects: [.log("a"), .log("b"), .stop])
        #expect(target.connects.current == 1)

        #expect(target.received.values == ["a", "b"])
        #expect(events.values == ["stopped"])

        loop.dispose()
        #expect(target.disposals.current == 1)
    }

    @Test("on(queue:) runs each kind of target on that queue")
    func onQueue() {
        let key = DispatchSpecificKey<String>()
        let queue = DispatchQueue(label: "effects")
        queue.setSpecific(key: key, value: "effects")
        let ranOn = Recorder<String>()
        let record: @Sendable (String) -> Void = { name in
            ranOn.append("\(name) on \(DispatchQueue.getSpecific(key: key) ?? "other")")
        }
        let target = ProbeConnectable<Void, String>(onAccept: { _ in record("connectable") })
        let router = EffectRouter<MediaEffect, String>()
            .routeCase(MediaEffect.stop).on(queue: queue).to { record("fire-and-forget") }
            .routeCase(MediaEffect.pause).on(queue: queue).toEvent {
                record("toEvent")
                return "paused"
            }
            .routeCase(MediaEffect.load).on(queue: queue).to { _, callback in
                record("handler")
                callback.end(with: "loaded")
                return AnonymousDisposable {}
            }
            .routeCase(MediaEffect.show).on(queue: queue).to(target.contramap { (_: String) in () })

        let (events, reports) = recordingMisuse {
            runEffects([.stop, .pause, .load(id: 1), .show("x")], through: router, expectEvents: 2) {
                _ = ranOn.wait(forCount: 4)
            }
        }

        #expect(reports.isEmpty, "\(reports)")
        #expect(ranOn.values.count == 4, "\(ranOn.values)")
        #expect(
            Set(ranOn.values)
                == ["fire-and-forget on effects", "toEvent on effects", "handler on effects", "connectable on effects"])
        #expect(Set(events) == ["paused", "loaded"])
    }

    @Test("without on(queue:) a route runs on the thread that runs the loop")
    func withoutQueueRunsInline() {
        let key = DispatchSpecificKey<Int>()
        let queue = DispatchQueue(label: "dispatcher")
        queue.setSpecific(key: key, value: 1)
        let seen = Recorder<Int>()
        let router = EffectRouter<Int, Int>().routeEffects(withParameters: { $0 }).to { _ in
            seen.append(DispatchQueue.getSpecific(key: key) ?? 0)
        }
        let loop = Mobius.loop(update: { (_: Int, event: Int) in .dispatchEffects([event]) }, effectHandler: router)
            .start(from: 0)
        defer { loop.dispose() }

        queue.sync { loop.dispatchEvent(5) }

        #expect(seen.values == [1])
    }

    // The async tests await instead of blocking: the route's tasks need a thread of the cooperative pool, which
    // has only as many threads as the machine has cores and which other suites' blocking waits may hold for a while.
    @Test("an async route's result event reaches the loop; nil sends nothing")
    func asyncRoute() async {
        let events = Recorder<String>()
        let router = EffectRouter<Int, String>()
            .routeEffects(withParameters: { $0 })
            .to { (value: Int) async -> String? in
                await Task.yield()
                return value > 0 ? "async \(value)" : nil
            }
        let loop = Mobius.loop(
            update: { (model: Int, event: String) in
                events.append(event)
                return .next(model + 1)
            },
            effectHandler: router
        )
        .start(from: 0, effects: [1, -1, 2])
        defer { loop.dispose() }

        #expect(await waitForAsync(timeout: .seconds(30)) { events.count >= 2 })
        #expect(events.values.sorted() == ["async 1", "async 2"])
        #expect(loop.latestModel == 2)
    }

    @Test("disposing the loop cancels a still-running async route, and its result is dropped")
    func asyncRouteCancelled() async {
        let started = Counter()
        let finished = Counter()
        let sawCancellation = Counter()
        let router = EffectRouter<Int, String>()
            .routeEffects(withParameters: { $0 })
            .to { (_: Int) async -> String? in
                started.increment()
                try? await Task.sleep(for: .seconds(60))
                if Task.isCancelled { sawCancellation.increment() }
                finished.increment()
                return "finished"
            }
        let events = Recorder<String>()
        let loop = Mobius.loop(
            update: { (_: Int, event: String) in
                events.append(event)
                return .noChange
            },
            effectHandler: router
        )
        .start(from: 0, effects: [1])
        #expect(await waitForAsync(timeout: .seconds(30)) { started.current == 1 })

        loop.dispose()

        #expect(await waitForAsync(timeout: .seconds(30)) { finished.current == 1 }, "the task was not cancelled")
        #expect(sawCancellation.current == 1)
        #expect(events.values.isEmpty)
    }

    @Test("an effect with no route is reported and dropped")
    func noRoute() {
        let handled = Recorder<Int>()
        let router = EffectRouter<Int, String>()
            .routeEffects(withParameters: { $0 == 1 ? $0 : nil }).to { handled.append($0) }

        let (_, reports) = recordingMisuse { _ = runEffects([2, 1], through: router) }

        #expect(reports.count == 1)
        #expect(reports.first?.contains("no route") == true, "\(reports)")
        #expect(reports.first?.contains("2") == true, "the message names the effect: \(reports)")
        #expect(handled.values == [1])
    }

    @Test("an effect matching two routes is reported and handled by neither")
    func twoRoutes() {
        let handled = Recorder<String>()
        let router = EffectRouter<MediaEffect, String>()
            .routeCase(MediaEffect.log).to { _ in handled.append("by case") }
            .routeEffects(equalTo: .log("both")).to { _ in handled.append("by value") }

        let (_, reports) = recordingMisuse { _ = runEffects([.log("both"), .log("one")], through: router) }

        #expect(reports.count == 1)
        #expect(reports.first?.contains("2 routes") == true, "\(reports)")
        #expect(handled.values == ["by case"], "log(\"one\") matches only one route")
    }

    @Test("EffectCallback: send after end is dropped, end(with:) sends then ends, end runs once")
    func effectCallback() {
        let log = Recorder<String>()
        let callback = EffectCallback<String>(onSend: { log.append("send \($0)") }, onEnd: { log.append("end") })

        callback.send("a")
        #expect(!callback.isEnded)
        callback.end(with: "b", "c")
        #expect(callback.isEnded)
        callback.send("d")
        callback.end()
        callback.end(with: "e")

        #expect(log.values == ["send a", "send b", "send c", "end"])
    }

    @Test("EffectCallback.end from many threads ends once")
    func effectCallbackEndConcurrently() {
        let ends = Counter()
        let callback = EffectCallback<Int>(onSend: { _ in }, onEnd: { ends.increment() })

        #expect(runOnThreads(8) { _ in callback.end() })

        #expect(ends.current == 1)
    }

    @Test("Connectable map transforms output, contramap transforms input")
    func connectableMapAndContramap() {
        let probe = ProbeConnectable<Int, Int>()
        let mapped = probe.map { "out \($0)" }.contramap { (text: String) in text.count }
        let outputs = Recorder<String>()

        let connection = mapped.connect(outputs.append)
        connection.accept("four")
        connection.accept("")
        #expect(probe.send(9))

        #expect(probe.received.values == [4, 0])
        #expect(outputs.values == ["out 9"])
        connection.dispose()
        connection.dispose()
        #expect(probe.disposals.current == 1)
        connection.accept("ignored")
        #expect(probe.received.values == [4, 0], "a disposed connection drops input")
    }
}
