import Dispatch
import Foundation
import MobiusCore
import Synchronization
import Testing

/// Effect handler that routes every `Int` effect to `handle`.
private func intEffects(_ handle: @escaping (Int) -> Void) -> AnyConnectable<Int, Int> {
    EffectRouter<Int, Int>().routeEffects(withParameters: { $0 }).to(handle).asConnectable
}

/// An update function that checks it is never re-entered nor run on two threads at once.
private final class GuardedUpdate: Sendable {
    private let depth = Atomic<Int>(0)
    private let maximumDepth = Atomic<Int>(0)
    let events = Recorder<Int>()
    private let body: @Sendable (Int, Int) -> Next<Int, Int>

    init(_ body: @escaping @Sendable (Int, Int) -> Next<Int, Int>) {
        self.body = body
    }

    var maxDepth: Int { maximumDepth.load(ordering: .relaxed) }

    func update(model: Int, event: Int) -> Next<Int, Int> {
        let now = depth.add(1, ordering: .acquiringAndReleasing).newValue
        maximumDepth.max(now, ordering: .relaxed)
        defer { depth.subtract(1, ordering: .acquiringAndReleasing) }
        events.append(event)
        return body(model, event)
    }
}

@Suite("MobiusLoop semantics", .serialized, .timeLimit(.scaled(minutes: 1)))
struct LoopSemanticsTests {
    @Test("effects of one Next are handled in array order")
    func effectsInArrayOrder() {
        let handled = Recorder<Int>()
        let loop = Mobius.loop(
            update: { (model: Int, event: Int) in .next(model + 1, effects: Array(event..<(event + 20))) },
            effectHandler: intEffects(handled.append)
        )
        .start(from: 0)
        defer { loop.dispose() }

        loop.dispatchEvent(100)
        loop.dispatchEvent(500)

        #expect(handled.wait(forCount: 40))
        #expect(handled.values == Array(100..<120) + Array(500..<520))
    }

    @Test("events sent synchronously from observers and effect handlers are queued in acceptance order, not recursed")
    func synchronousEventsAreQueued() {
        let update = GuardedUpdate { model, event in
            event == 0 ? .next(model + 1, effects: [10, 20]) : .next(model + 1)
        }
        var loopReference: MobiusLoop<Int, Int, Int>?
        let effectHandler = EffectRouter<Int, Int>()
            .routeEffects(withParameters: { $0 }).toEvent { $0 }
        let loop = Mobius.loop(update: update.update, effectHandler: effectHandler).start(from: 0)
        defer { loop.dispose() }
        loopReference = loop
        loop.addObserver { model in
            // Sent while the loop is publishing model 1, before that Next's effects run.
            if model == 1 { loopReference?.dispatchEvent(5) }
        }

        loop.dispatchEvent(0)

        #expect(update.events.wait(forCount: 4))
        #expect(update.events.values == [0, 5, 10, 20])
        #expect(update.maxDepth == 1, "update was re-entered")
        #expect(loop.latestModel == 4)
    }

    @Test("8 threads × 10,000 events: nothing lost, per-thread order kept, update never concurrent")
    func concurrentDispatch() {
        let threads = 8
        let perThread = 10_000
        let lastSeen = Shared<[Int]>(Array(repeating: -1, count: threads))
        let outOfOrder = Counter()
        let update = GuardedUpdate { model, event in
            let (thread, sequence) = event.quotientAndRemainder(dividingBy: 1_000_000)
            lastSeen.withLock { last in
                if sequence != last[thread] + 1 { outOfOrder.increment() }
                last[thread] = sequence
            }
            return .next(model + 1)
        }
        let loop = Mobius.loop(update: update.update, effectHandler: intEffects { _ in }).start(from: 0)
        defer { loop.dispose() }

        let finished = runOnThreads(threads) { thread in
            for sequence in 0..<perThread {
                loop.dispatchEvent(thread * 1_000_000 + sequence)
            }
        }

        #expect(finished)
        #expect(waitFor { loop.latestModel == threads * perThread })
        #expect(loop.latestModel == threads * perThread)
        #expect(outOfOrder.current == 0)
        #expect(lastSeen.value == Array(repeating: perThread - 1, count: threads))
        #expect(update.maxDepth == 1, "update ran on two threads at once or re-entered")
    }

    @Test("a Next's model reaches observers before its effects run")
    func modelBeforeEffects() {
        let log = Recorder<String>()
        var loopReference: MobiusLoop<Int, Int, Int>?
        let loop = Mobius.loop(
            update: { (model: Int, event: Int) in .next(event, effects: [event * 10]) },
            effectHandler: intEffects { effect in
                log.append("effect \(effect) sees model \(loopReference?.latestModel ?? -1)")
            }
        )
        .start(from: 0)
        defer { loop.dispose() }
        loopReference = loop
        loop.addObserver { log.append("model \($0)") }

        loop.dispatchEvent(1)
        loop.dispatchEvent(2)

        #expect(log.wait(forCount: 5))
        #expect(
            log.values == [
                "model 0",
                "model 1", "effect 10 sees model 1",
                "model 2", "effect 20 sees model 2",
            ])
    }

    @Test("addObserver replays the current model; disposing it stops delivery to that observer only")
    func observers() {
        let loop = Mobius.loop(
            update: { (model: Int, event: Int) in .next(model + event) }, effectHandler: intEffects { _ in }
        )
        .start(from: 7)
        defer { loop.dispose() }
        let first = Recorder<Int>()
        let second = Recorder<Int>()

        let firstSubscription = loop.addObserver(first.append)
        loop.dispatchEvent(1)
        loop.addObserver(second.append)
        #expect(second.wait { $0 == [8] }, "a late observer gets the current model at once")

        firstSubscription.dispose()
        loop.dispatchEvent(2)

        #expect(second.wait { $0 == [8, 10] })
        #expect(first.values == [7, 8])
        #expect(loop.latestModel == 10)
    }

    @Test("a Next without a model publishes nothing and keeps latestModel")
    func noChangeKeepsModel() {
        let loop = Mobius.loop(
            update: { (model: Int, event: Int) in event < 0 ? .noChange : .next(event) },
            effectHandler: intEffects { _ in }
        )
        .start(from: 1)
        defer { loop.dispose() }
        let models = Recorder<Int>()
        loop.addObserver(models.append)

        loop.dispatchEvent(-1)
        loop.dispatchEvent(3)
        loop.dispatchEvent(-5)

        #expect(models.wait { $0.last == 3 })
        #expect(models.values == [1, 3])
        #expect(loop.latestModel == 3)
    }

    @Test("dispose is idempotent and disconnects the event source and the effect handler")
    func disposeReleasesParts() {
        let effects = ProbeConnectable<Int, Int>()
        let source = ManualEventSource<Int>()
        let modelSource = ProbeConnectable<Int, Int>()
        let loop = Mobius.loop(update: { (model: Int, event: Int) in .next(model + event) }, effectHandler: effects)
            .withEventSource(source)
            .withEventSource(modelSource)
            .start(from: 0)
        #expect(effects.connects.current == 1)
        #expect(source.subscriptions.current == 1)

        loop.dispose()
        loop.dispose()

        #expect(effects.disposals.current == 1)
        #expect(source.disposals.current == 1)
        #expect(modelSource.disposals.current == 1)
        #expect(!source.emit(1), "the source lost its subscriber")
        #expect(loop.latestModel == 0)
    }

    @Test("events from the effect handler after dispose are dropped silently")
    func lateEffectEventsDropped() {
        let effects = ProbeConnectable<Int, Int>()
        let loop = Mobius.loop(update: { (model: Int, event: Int) in .next(model + event) }, effectHandler: effects)
            .start(from: 0)
        // Keep the consumer the handler was given, as a handler finishing late work would.
        let (_, reports) = recordingMisuse {
            loop.dispose()
            _ = effects.send(1)
        }
        #expect(reports.isEmpty)
        #expect(loop.latestModel == 0)
    }

    @Test("dispatching after dispose is reported with the loop's types, and the event is not processed")
    func dispatchAfterDispose() {
        let update = GuardedUpdate { model, event in .next(model + event) }
        let loop = Mobius.loop(update: update.update, effectHandler: intEffects { _ in }).start(from: 0)
        loop.dispose()

        let (_, reports) = recordingMisuse { loop.dispatchEvent(42) }

        #expect(reports.count == 1)
        #expect(reports.first?.contains("MobiusLoop<Int, Int, Int>") == true, "\(reports)")
        #expect(reports.first?.contains("disposed") == true, "\(reports)")
        #expect(update.events.values.isEmpty)
    }

    @Test("adding an observer after dispose is reported")
    func observeAfterDispose() {
        let loop = Mobius.loop(update: { (model: Int, event: Int) in .next(event) }, effectHandler: intEffects { _ in })
            .start(from: 0)
        loop.dispose()
        let models = Recorder<Int>()

        let (_, reports) = recordingMisuse { loop.addObserver(models.append) }

        #expect(reports.count == 1)
        #expect(models.values.isEmpty)
    }

    @Test("start(from:effects:) dispatches the start effects in order, before any event")
    func startEffects() {
        let handled = Recorder<Int>()
        let loop = Mobius.loop(
            update: { (model: Int, event: Int) in .next(model, effects: [event]) },
            effectHandler: intEffects(handled.append)
        )
        .start(from: 0, effects: [3, 1, 2])
        defer { loop.dispose() }

        #expect(handled.wait(forCount: 3))
        loop.dispatchEvent(9)
        #expect(handled.wait(forCount: 4))
        #expect(handled.values == [3, 1, 2, 9])
    }

    @Test("the event consumer transformer sees every event: dispatched, from effects, from sources")
    func eventConsumerTransformer() {
        let seen = Recorder<Int>()
        let source = ManualEventSource<Int>()
        let update = GuardedUpdate { model, event in
            event == 1 ? .next(model + 1, effects: [2]) : .next(model + 1)
        }
        let loop = Mobius.loop(
            update: update.update,
            effectHandler: EffectRouter<Int, Int>().routeEffects(withParameters: { $0 }).toEvent { $0 }
        )
        .withEventSource(source)
        .withEventConsumerTransformer { consumer in
            { event in
                seen.append(event)
                consumer(event * 100)
            }
        }
        .start(from: 0)
        defer { loop.dispose() }

        loop.dispatchEvent(1)  // reaches update as 100, which is not 1: no effect
        #expect(source.emit(3))
        #expect(update.events.wait(forCount: 2))
        #expect(seen.values == [1, 3])
        #expect(update.events.values == [100, 300])
    }

    @Test("the event consumer transformer also wraps events sent by effect handlers")
    func transformerWrapsEffectEvents() {
        let seen = Recorder<Int>()
        let update = GuardedUpdate { model, event in
            event == 1 ? .next(model + 1, effects: [7]) : .next(model + 1)
        }
        let loop = Mobius.loop(
            update: update.update,
            effectHandler: EffectRouter<Int, Int>().routeEffects(withParameters: { $0 }).toEvent { $0 }
        )
        .withEventConsumerTransformer { consumer in
            { event in
                seen.append(event)
                consumer(event)
            }
        }
        .start(from: 0)
        defer { loop.dispose() }

        loop.dispatchEvent(1)

        #expect(update.events.wait(forCount: 2))
        #expect(seen.values == [1, 7])
        #expect(update.events.values == [1, 7])
    }

    @Test("a model-driven event source gets the initial and each new model, and can send events")
    func modelDrivenEventSource() {
        let log = Recorder<String>()
        let source = ProbeConnectable<Int, Int>(onAccept: { log.append("source saw \($0)") })
        let loop = Mobius.loop(
            update: { (model: Int, event: Int) in .next(model + event, effects: [model + event]) },
            effectHandler: intEffects { log.append("effect \($0)") }
        )
        .withEventSource(source)
        .start(from: 5)
        #expect(source.received.values == [5])

        loop.dispatchEvent(1)
        #expect(source.send(10), "the source can send events")

        #expect(source.received.wait { $0 == [5, 6, 16] })
        #expect(log.values == ["source saw 5", "source saw 6", "effect 6", "source saw 16", "effect 16"])
        #expect(loop.latestModel == 16)

        loop.dispose()
        #expect(source.disposals.current == 1)
    }

    @Test("the logger sees willUpdate and didUpdate around each update")
    func loggerCalls() {
        let logger = RecordingLogger()
        let loop = Mobius.loop(
            update: { (model: Int, event: Int) in event == 0 ? .dispatchEffects([1]) : .next(model + event) },
            effectHandler: intEffects { _ in }
        )
        .withLogger(logger)
        .start(from: 0)
        defer { loop.dispose() }

        loop.dispatchEvent(2)
        loop.dispatchEvent(0)

        #expect(logger.lines.wait(forCount: 4))
        #expect(
            logger.lines.values == [
                "willUpdate 0 2",
                "didUpdate 0 2 -> Next(model: 2, effects: [])",
                "willUpdate 2 0",
                "didUpdate 2 0 -> Next(model: nil, effects: [1])",
            ])
    }

    // The drainer and `dispose()` hand over the job of releasing the loop's parts. Whatever the timing, a disposed
    // loop must disconnect its event source and effect handler exactly once.
    @Test("dispose racing with a thread that is delivering events still releases the parts once")
    func disposeRacingWithDelivery() {
        // The window is a few instructions wide, so try many times; stop at the first leak.
        let rounds = 3_000
        var leakedInRound: Int?
        var disposedTwice = 0
        for round in 0..<rounds {
            let effects = ProbeConnectable<Int, Int>()
            let source = ManualEventSource<Int>()
            let loop = Mobius.loop(update: { (model: Int, _: Int) in .next(model + 1) }, effectHandler: effects)
                .withEventSource(source)
                .start(from: 0)
            let started = DispatchSemaphore(value: 0)
            let stopped = DispatchSemaphore(value: 0)
            Thread.detachNewThread {
                started.signal()
                while source.emit(1) {}
                stopped.signal()
            }
            _ = started.waitSucceeds()
            for _ in 0..<(round % 50) { _ = loop.latestModel }  // vary where in the delivery dispose lands
            loop.dispose()
            // Parts released: the source lost its subscriber, so the emitting thread stops.
            let emitterStopped = stopped.waitSucceeds(seconds: 0.5)
            if !emitterStopped {
                source.forceUnsubscribe()
                _ = stopped.waitSucceeds()
            }
            if effects.disposals.current > 1 || source.disposals.current > 1 { disposedTwice += 1 }
            if !emitterStopped || effects.disposals.current != 1 {
                leakedInRound = round
                break
            }
        }
        #expect(leakedInRound == nil, "dispose() left the event source or effect handler connected")
        #expect(disposedTwice == 0)
    }
}

private final class RecordingLogger: MobiusLogger, Sendable {
    typealias Model = Int
    typealias Event = Int
    typealias Effect = Int

    let lines = Recorder<String>()

    func willInitiate(model: Int) { lines.append("willInitiate \(model)") }
    func didInitiate(model: Int, first: First<Int, Int>) { lines.append("didInitiate \(model)") }
    func willUpdate(model: Int, event: Int) { lines.append("willUpdate \(model) \(event)") }
    func didUpdate(model: Int, event: Int, next: Next<Int, Int>) {
        lines.append("didUpdate \(model) \(event) -> \(String(reflecting: next))")
    }
}
