import Dispatch
import MobiusCore
import MobiusExtras
import Synchronization
import Testing

// The examples from Mobius.swift's documentation, ported as written, with the outputs the docs promise.

enum CounterEvent: Sendable, Equatable {
    case increment
    case decrement
}

enum CounterEffect: Sendable, Equatable {
    case playSound
}

func counterUpdate(model: Int, event: CounterEvent) -> Next<Int, CounterEffect> {
    switch event {
    case .increment:
        return .next(model + 1)
    case .decrement:
        if model == 0 {
            return .dispatchEffects([.playSound])
        }
        return .next(model - 1)
    }
}

@Suite("Documentation examples", .serialized, .timeLimit(.scaled(minutes: 1)))
struct DocExampleTests {
    @Test(
        "counter update function",
        arguments: [
            (0, CounterEvent.increment, Next<Int, CounterEffect>.next(1)),
            (5, .increment, .next(6)),
            (5, .decrement, .next(4)),
            (1, .decrement, .next(0)),
            (0, .decrement, .dispatchEffects([.playSound])),
        ])
    func counterUpdateFunction(model: Int, event: CounterEvent, expected: Next<Int, CounterEffect>) {
        #expect(counterUpdate(model: model, event: event) == expected)
    }

    @Test("counter loop prints 0, 1, 0 and plays the sound once on the extra decrement")
    func counterLoop() {
        let output = Recorder<String>()
        let effectHandler = EffectRouter<CounterEffect, CounterEvent>()
            .routeCase(CounterEffect.playSound).to { output.append("🎶") }
            .asConnectable
        let application = Mobius.loop(update: counterUpdate, effectHandler: effectHandler)
            .start(from: 0)
        defer { application.dispose() }

        application.addObserver { counter in output.append("\(counter)") }
        #expect(output.values == ["0"], "addObserver replays the current model")

        application.dispatchEvent(.increment)
        application.dispatchEvent(.decrement)
        application.dispatchEvent(.decrement)

        #expect(output.wait { $0.count >= 4 })
        #expect(output.values == ["0", "1", "0", "🎶"])
        #expect(application.latestModel == 0)
    }

    @Test("beginner loop: update returns only the model")
    func beginnerLoop() {
        let models = Recorder<Int>()
        let loop = Mobius.beginnerLoop { (model: Int, event: CounterEvent) -> Int in
            switch event {
            case .increment: return model + 1
            case .decrement: return model - 1
            }
        }
        .start(from: 3)
        defer { loop.dispose() }

        loop.addObserver(models.append)
        loop.dispatchEvent(.increment)
        loop.dispatchEvent(.increment)
        loop.dispatchEvent(.decrement)

        #expect(models.wait(forCount: 4))
        #expect(models.values == [3, 4, 5, 4])
        #expect(loop.latestModel == 4)
    }

    @Test("search: an EffectHandler answers through its callback from another queue")
    func searchExample() {
        let searchQueue = DispatchQueue(label: "search")
        let handler = SearchHandler(queue: searchQueue, catalog: ["apple", "apricot", "banana", "grape"])
        let effectHandler = EffectRouter<SearchEffect, SearchEvent>()
            .routeCase(SearchEffect.search).to(handler)
            .asConnectable
        let loop = Mobius.loop(update: searchUpdate, effectHandler: effectHandler)
            .start(from: SearchModel())
        defer { loop.dispose() }
        let models = Recorder<SearchModel>()
        loop.addObserver(models.append)

        let (_, reports) = recordingMisuse { loop.dispatchEvent(.queryChanged("ap")) }

        #expect(reports.isEmpty, "\(reports)")

        #expect(models.wait { $0.last?.results != nil })
        #expect(
            models.values == [
                SearchModel(),
                SearchModel(query: "ap", loading: true),
                SearchModel(query: "ap", loading: false, results: ["apple", "apricot", "grape"]),
            ])
        #expect(waitFor { handler.ended.current == 1 }, "the handler ended the effect")
    }

    @Test("controller lifecycle: start, view events, stop keeps the model, replaceModel, restart re-initiates")
    func controllerLifecycle() {
        let initiated = Recorder<Int>()
        let sounds = Counter()
        let effectHandler = EffectRouter<CounterEffect, CounterEvent>()
            .routeCase(CounterEffect.playSound).to { sounds.increment() }
            .asConnectable
        let controller = Mobius.loop(update: counterUpdate, effectHandler: effectHandler)
            .makeController(from: 0) { model in
                initiated.append(model)
                return First(model: model)
            }
        let view = ProbeConnectable<Int, CounterEvent>()

        controller.connectView(view)
        #expect(!controller.running)
        #expect(view.connects.current == 0, "views connect when the controller starts")

        controller.start()
        #expect(controller.running)
        #expect(initiated.values == [0])
        #expect(view.received.wait { $0 == [0] })

        #expect(view.send(.increment))
        #expect(view.send(.increment))
        #expect(view.send(.decrement))
        #expect(view.received.wait { $0.last == 1 && $0.count == 4 })
        #expect(view.received.values == [0, 1, 2, 1])
        #expect(controller.model == 1)

        controller.stop()
        #expect(!controller.running)
        #expect(controller.model == 1, "stop keeps the latest model")
        #expect(view.disposals.current == 1)

        controller.replaceModel(10)
        #expect(controller.model == 10)

        controller.start()
        #expect(initiated.values == [0, 10], "initiate runs on every start, from the current model")
        #expect(view.received.wait { $0.last == 10 })
        #expect(view.send(.decrement))
        #expect(view.received.wait { $0.last == 9 })
        #expect(controller.model == 9)
        controller.stop()
        #expect(sounds.current == 0)
    }

    @Test("event source: AnyEventSource feeds the loop and is disposed with it")
    func eventSourceExample() {
        let source = ManualEventSource<CounterEvent>()
        let loop = Mobius.loop(
            update: counterUpdate,
            effectHandler: EffectRouter<CounterEffect, CounterEvent>().routeCase(CounterEffect.playSound).to {}
        )
        .withEventSource(AnyEventSource(source))
        .start(from: 0)
        let models = Recorder<Int>()
        loop.addObserver(models.append)

        #expect(source.emit(.increment))
        #expect(source.emit(.increment))
        #expect(models.wait { $0 == [0, 1, 2] })

        loop.dispose()
        #expect(source.disposals.current == 1)
        #expect(!source.isSubscribed)
    }

    @Test("CompositeEventSourceBuilder merges sources and disposes each")
    func compositeEventSource() {
        let ups = ManualEventSource<CounterEvent>()
        let downs = ManualEventSource<CounterEvent>()
        let closureSubscriptions = Counter()
        let closureSource = AnyEventSource<CounterEvent> { consumer in
            closureSubscriptions.increment()
            consumer(.increment)
            return AnonymousDisposable { closureSubscriptions.increment() }
        }
        let source = CompositeEventSourceBuilder<CounterEvent>()
            .addEventSource(ups)
            .addEventSource(downs)
            .addEventSource(closureSource)
            .build()
        let loop = Mobius.beginnerLoop { (model: Int, event: CounterEvent) in
            event == .increment ? model + 1 : model - 1
        }
        .withEventSource(source)
        .start(from: 0)

        #expect(ups.emit(.increment))
        #expect(ups.emit(.increment))
        #expect(downs.emit(.decrement))
        #expect(waitFor { loop.latestModel == 2 })

        loop.dispose()
        #expect(ups.disposals.current == 1)
        #expect(downs.disposals.current == 1)
        #expect(closureSubscriptions.current == 2, "subscribed once, disposed once")
    }

    @Test("SimpleLogger writes one line per step through its consumer")
    func simpleLogger() {
        let lines = Recorder<String>()
        let controller = Mobius.loop(
            update: counterUpdate,
            effectHandler: EffectRouter<CounterEffect, CounterEvent>().routeCase(CounterEffect.playSound).to {}
        )
        .withLogger(SimpleLogger(tag: "Counter", consumer: lines.append))
        .makeController(from: 0) { First(model: $0) }

        controller.start()
        controller.dispatchEvent(.increment)
        controller.dispatchEvent(.decrement)
        controller.dispatchEvent(.decrement)
        #expect(lines.wait(forCount: 8))
        controller.stop()

        #expect(
            lines.values == [
                "Counter: Initializing loop",
                "Counter: Loop initialized, starting from model: 0",
                "Counter: Event received: increment",
                "Counter: Model updated: 1",
                "Counter: Event received: decrement",
                "Counter: Model updated: 0",
                "Counter: Event received: decrement",
                "Counter: Effect dispatched: playSound",
            ])
    }
}

// MARK: - The search example's types

enum SearchEffect: Sendable, Equatable {
    case search(query: String)
}

enum SearchEvent: Sendable, Equatable {
    case queryChanged(String)
    case resultsLoaded([String])
}

struct SearchModel: Sendable, Equatable {
    var query = ""
    var loading = false
    var results: [String]?
}

func searchUpdate(model: SearchModel, event: SearchEvent) -> Next<SearchModel, SearchEffect> {
    switch event {
    case .queryChanged(let query):
        return .next(SearchModel(query: query, loading: true), effects: [.search(query: query)])
    case .resultsLoaded(let results):
        return .next(SearchModel(query: model.query, loading: false, results: results))
    }
}

struct SearchHandler: EffectHandler {
    let queue: DispatchQueue
    let catalog: [String]
    let ended = Counter()

    func handle(_ query: String, _ callback: EffectCallback<SearchEvent>) -> any Disposable {
        let catalog = self.catalog
        let ended = self.ended
        queue.async {
            callback.send(.resultsLoaded(catalog.filter { $0.contains(query) }))
            callback.end()
            ended.increment()
        }
        return AnonymousDisposable {}
    }
}
