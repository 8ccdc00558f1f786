import Dispatch
import Foundation
import MobiusCore
import Synchronization
import Testing

private typealias IntController = MobiusController<Int, Int, Int>

/// A loop builder whose model is the sum of its events; `effects` decides the effects per event.
private func summingLoop(
    effects: @escaping (Int) -> [Int] = { _ in [] },
    handle: @escaping (Int) -> Void = { _ in }
) -> Mobius.Builder<Int, Int, Int> {
    Mobius.loop(
        update: { (model: Int, event: Int) in .next(model + event, effects: effects(event)) },
        effectHandler: EffectRouter<Int, Int>().routeEffects(withParameters: { $0 }).to(handle)
    )
}

@Suite("MobiusController", .serialized, .timeLimit(.scaled(minutes: 1)))
struct MobiusControllerTests {
    @Test("backpressure: a fast producer blocks at the mailbox capacity, then every event arrives in order")
    func backpressure() {
        let capacity = 16
        let total = 1_000
        let entered = DispatchSemaphore(value: 0)
        let gate = DispatchSemaphore(value: 0)
        let processed = Recorder<Int>()
        let controller = Mobius.loop(
            update: { (model: Int, event: Int) in
                if event == -1 {
                    entered.signal()
                    gate.wait()  // the loop is stuck here until the test opens the gate
                } else {
                    processed.append(event)
                }
                return .next(model + 1)
            },
            effectHandler: EffectRouter<Int, Int>().routeEffects(withParameters: { $0 }).to { _ in }
        )
        .makeController(from: 0, mailboxCapacity: capacity)
        controller.start()
        defer { controller.stop() }
        controller.dispatchEvent(-1)
        #expect(entered.waitSucceeds(), "the loop did not take the first event")

        let returned = Counter()
        let producerDone = DispatchSemaphore(value: 0)
        Thread.detachNewThread {
            for event in 0..<total {
                controller.dispatchEvent(event)
                returned.increment()
            }
            producerDone.signal()
        }

        #expect(waitFor { returned.current >= capacity }, "the mailbox should hold \(capacity) events")
        // Without backpressure the producer would finish its 1,000 events in well under a millisecond.
        #expect(!producerDone.waitSucceeds(seconds: 0.3), "the producer was never blocked")
        #expect(returned.current <= capacity + 1, "\(returned.current) dispatchEvent calls returned while blocked")

        gate.signal()
        #expect(producerDone.waitSucceeds())
        #expect(processed.wait(forCount: total))
        #expect(processed.values == Array(0..<total))
        #expect(waitFor { controller.model == total + 1 })
    }

    @Test("an effect handler on the loop queue may send more events than the capacity without blocking")
    func effectHandlerSendsPastCapacity() {
        let controllerSlot = Shared<IntController?>(nil)
        let controller = summingLoop(
            effects: { $0 == 0 ? [0] : [] },
            handle: { _ in
                for _ in 0..<100 { controllerSlot.value?.dispatchEvent(1) }
            }
        )
        .makeController(from: 0, mailboxCapacity: 4)
        controllerSlot.withLock { $0 = controller }
        controller.start()

        controller.dispatchEvent(0)

        #expect(waitFor { controller.model == 100 }, "model is \(controller.model)")
        controller.stop()
        controllerSlot.withLock { $0 = nil }
    }

    @Test("misuse is reported: start running, stop stopped, connectView/replaceModel/disconnectView running")
    func misuseReported() {
        let controller = summingLoop().makeController(from: 0)
        let view = ProbeConnectable<Int, Int>()

        let stopped = recordingMisuse {
            controller.stop()
            controller.dispatchEvent(1)
            controller.disconnectView()
        }
        #expect(stopped.reports.count == 3, "\(stopped.reports)")
        #expect(stopped.reports.allSatisfy { $0.contains("MobiusController<Int, Int, Int>") }, "\(stopped.reports)")
        #expect(controller.model == 0, "an event sent while stopped is not processed")

        controller.connectView(view)
        controller.start()
        let running = recordingMisuse {
            controller.start()
            controller.connectView(ProbeConnectable<Int, Int>())
            controller.replaceModel(99)
            controller.disconnectView()
        }
        #expect(running.reports.count == 4, "\(running.reports)")
        #expect(controller.running)
        #expect(controller.model == 0, "replaceModel while running is ignored")
        #expect(view.connects.current == 1, "the second start did not connect the view again")

        controller.stop()
        controller.start()
        #expect(view.connects.current == 2, "the rejected view was not added")
        controller.stop()
    }

    @Test("start and stop from an effect handler on the loop queue are reported, not deadlocks")
    func lifecycleFromLoopQueue() {
        let controllerSlot = Shared<IntController?>(nil)
        let reports = Recorder<String>()
        let handled = DispatchSemaphore(value: 0)
        let controller = summingLoop(
            effects: { [$0] },
            handle: { _ in
                MobiusHooks.withErrorHandler(misuseHandler(reports)) {
                    controllerSlot.value?.stop()
                    controllerSlot.value?.start()
                }
                handled.signal()
            }
        )
        .makeController(from: 0)
        controllerSlot.withLock { $0 = controller }
        controller.start()

        controller.dispatchEvent(1)

        #expect(handled.waitSucceeds(), "the effect handler deadlocked")
        #expect(reports.values.count == 2, "\(reports.values)")
        #expect(reports.values.allSatisfy { $0.contains("loop queue") }, "\(reports.values)")
        #expect(controller.running)
        controller.stop()
        controllerSlot.withLock { $0 = nil }
    }

    @Test("several views all get models and may all send events")
    func severalViews() {
        let controller = summingLoop().makeController(from: 0)
        let first = ProbeConnectable<Int, Int>()
        let second = ProbeConnectable<Int, Int>()
        controller.connectView(first)
        controller.connectView(second)
        controller.start()

        #expect(first.send(1))
        #expect(first.received.wait { $0.last == 1 })
        #expect(second.send(10))
        #expect(second.received.wait { $0.last == 11 })
        #expect(first.received.wait { $0.last == 11 })

        #expect(first.received.values == [0, 1, 11])
        #expect(second.received.values == [0, 1, 11])
        controller.stop()
        #expect(first.disposals.current == 1)
        #expect(second.disposals.current == 1)

        controller.disconnectView()
        controller.start()
        #expect(first.connects.current == 1, "disconnected views are not connected again")
        controller.stop()
    }

    @Test("views get models on the loop queue by default")
    func viewsOnLoopQueue() {
        let key = DispatchSpecificKey<String>()
        let target = DispatchQueue(label: "loop target")
        target.setSpecific(key: key, value: "loop")
        let threads = Recorder<String>()
        let view = ProbeConnectable<Int, Int>(onAccept: { _ in
            threads.append(DispatchQueue.getSpecific(key: key) ?? "other")
        })
        let controller = summingLoop().makeController(from: 0, loopQueue: target)
        controller.connectView(view)
        controller.start()

        controller.dispatchEvent(1)

        #expect(threads.wait(forCount: 2))
        #expect(threads.values == ["loop", "loop"])
        controller.stop()
    }

    @Test("with a view queue, a view that falls behind gets the newest model next (latest wins)")
    func viewQueueLatestWins() {
        let key = DispatchSpecificKey<String>()
        let viewQueue = DispatchQueue(label: "view")
        viewQueue.setSpecific(key: key, value: "view")
        let onViewQueue = Counter()
        let view = ProbeConnectable<Int, Int>(onAccept: { _ in
            if DispatchQueue.getSpecific(key: key) == "view" { onViewQueue.increment() }
        })
        let controller = summingLoop().makeController(from: 0, viewQueue: viewQueue)
        controller.connectView(view)
        let unblockView = DispatchSemaphore(value: 0)
        viewQueue.async { unblockView.wait() }  // the view is busy

        controller.start()
        for _ in 0..<100 { controller.dispatchEvent(1) }
        #expect(waitFor { controller.model == 100 })
        #expect(view.received.values.isEmpty)

        unblockView.signal()
        #expect(view.received.wait { $0.last == 100 })
        #expect(view.received.values == [100], "the view got a backlog instead of the newest model")

        controller.dispatchEvent(5)
        #expect(view.received.wait { $0.last == 105 }, "the final model is always delivered")
        #expect(onViewQueue.current == view.received.count)
        controller.stop()
    }

    @Test("initiate runs on every start and its effects are dispatched")
    func initiateEffectsOnEachStart() {
        let handled = Recorder<Int>()
        let controller = summingLoop(handle: handled.append)
            .makeController(from: 1) { model in First(model: model * 10, effects: [model, -model]) }

        controller.start()
        #expect(controller.model == 10)
        #expect(handled.wait(forCount: 2))
        controller.stop()
        controller.start()
        #expect(handled.wait(forCount: 4))
        controller.stop()

        #expect(handled.values == [1, -1, 10, -10])
        #expect(controller.model == 100)
    }

    @Test("the event source is subscribed on start and disposed on stop")
    func eventSourceFollowsLifecycle() {
        let source = ManualEventSource<Int>()
        let controller = summingLoop().withEventSource(source).makeController(from: 0)
        #expect(source.subscriptions.current == 0)

        controller.start()
        #expect(source.subscriptions.current == 1)
        #expect(source.emit(2))
        #expect(waitFor { controller.model == 2 })

        controller.stop()
        #expect(source.disposals.current == 1)
        #expect(!source.isSubscribed)

        controller.start()
        #expect(source.subscriptions.current == 2)
        #expect(source.emit(3))
        #expect(waitFor { controller.model == 5 })
        controller.stop()
    }

    @Test("stop while the loop is busy waits for it, and a restart resumes from the processed model")
    func stopWhileBusy() {
        let entered = DispatchSemaphore(value: 0)
        let gate = DispatchSemaphore(value: 0)
        let controller = Mobius.loop(
            update: { (model: Int, event: Int) in
                if event == 0 {
                    entered.signal()
                    gate.wait()
                }
                return .next(model + event)
            },
            effectHandler: EffectRouter<Int, Int>().routeEffects(withParameters: { $0 }).to { _ in }
        )
        .makeController(from: 0)
        controller.start()
        controller.dispatchEvent(0)
        #expect(entered.waitSucceeds())
        for _ in 0..<10 { controller.dispatchEvent(1) }

        let stopped = DispatchSemaphore(value: 0)
        Thread.detachNewThread {
            controller.stop()
            stopped.signal()
        }
        gate.signal()
        #expect(stopped.waitSucceeds())

        // The ten queued events may or may not have been taken before stop; the model is whatever was processed.
        let model = controller.model
        #expect((0...10).contains(model))
        controller.start()
        #expect(controller.model == model)
        controller.stop()
    }

    @Test("releasing a running controller stops it")
    func deinitStopsRunningController() {
        let source = ManualEventSource<Int>()
        let effects = ProbeConnectable<Int, Int>()
        let view = ProbeConnectable<Int, Int>()
        do {
            let controller = Mobius.loop(
                update: { (model: Int, event: Int) in .next(model + event) },
                effectHandler: effects
            )
            .withEventSource(source)
            .makeController(from: 0)
            controller.connectView(view)
            controller.start()
            #expect(source.emit(1))
            #expect(view.received.wait { $0.last == 1 })
        }

        #expect(source.disposals.current == 1)
        #expect(effects.disposals.current == 1)
        #expect(view.disposals.current == 1)
    }

    // A view may send an event while the controller is being stopped (a user tap racing with stop). Events from
    // effect handlers and event sources that race with disposal are dropped quietly; a view's should be too.
    @Test("an event a view sends while the controller stops is dropped, not reported as misuse")
    func viewEventDuringStop() {
        let controller = summingLoop().makeController(from: 0)
        let view = ClosingView()
        controller.connectView(view)
        controller.start()

        let (_, reports) = recordingMisuse { controller.stop() }

        #expect(view.sentWhileClosing.current == 1)
        #expect(reports.isEmpty, "\(reports)")
        #expect(controller.model == 0)
    }
}

/// A view that sends one last event while its connection is being disposed.
private final class ClosingView: Connectable, Sendable {
    let sentWhileClosing = Counter()

    func connect(_ consumer: @escaping Consumer<Int>) -> Connection<Int> {
        Connection(
            acceptClosure: { _ in },
            disposeClosure: { [sentWhileClosing] in
                consumer(1)
                sentWhileClosing.increment()
            }
        )
    }
}
