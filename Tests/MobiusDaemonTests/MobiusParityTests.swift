import MobiusCore
import MobiusJSON
import Testing

@testable import MobiusDaemon

/// A dial: `up` and `down` move it within 0...3 and announce the new level; `down` at 0 and `up` at 3 change nothing
/// and ask for a buzz; `set` jumps and announces twice; `noop` does nothing at all.
fileprivate struct Dial: Codable, Equatable, Sendable {
    var level: Int
    var moves: Int
}

fileprivate enum DialEvent: Codable, Equatable, Sendable {
    case up, down, noop
    case set(Int)
}

fileprivate enum DialEffect: Codable, Equatable, Sendable {
    case announce(Int)
    case buzz
}

fileprivate func dialUpdate(_ dial: Dial, _ event: DialEvent) -> Next<Dial, DialEffect> {
    switch event {
    case .up where dial.level < 3, .down where dial.level > 0:
        let level = dial.level + (event == .up ? 1 : -1)
        return .next(Dial(level: level, moves: dial.moves + 1), effects: [.announce(level)])
    case .up, .down:
        return .dispatchEffects([.buzz])
    case .set(let level):
        return .next(Dial(level: level, moves: dial.moves + 1), effects: [.announce(level), .announce(level)])
    case .noop:
        return .noChange
    }
}

/// Starts from the model, normalised, and announces where it is.
fileprivate func dialInitiate(_ dial: Dial) -> First<Dial, DialEffect> {
    First(model: Dial(level: min(max(dial.level, 0), 3), moves: 0), effects: [.announce(min(max(dial.level, 0), 3))])
}

/// What a loop did, in order: each model it published and each effect it dispatched.
fileprivate enum Step: Equatable, CustomStringConvertible {
    case model(Dial)
    case effect(DialEffect)

    var description: String {
        switch self {
        case .model(let dial): "model \(dial.level)/\(dial.moves)"
        case .effect(let effect): "effect \(effect)"
        }
    }
}

/// One typed app through `Mobius.loop` and through the daemon's loop: the same models and effects, in the same
/// order, because both start through `First.start` and apply each update through `Next.apply(to:)`.
@Suite("Mobius.loop and the daemon's loop agree")
struct MobiusParityTests {
    fileprivate static let events: [DialEvent] = [
        .up, .up, .noop, .up, .up, .set(1), .down, .down, .down, .noop, .set(3), .up,
    ]

    @Test("a typed app gives the same models and effects in Mobius.loop and in the daemon")
    func sameModelsAndEffects() throws {
        let start = Dial(level: 7, moves: 9)
        let library = libraryRun(from: start)
        let daemon = try daemonRun(from: start)
        #expect(library.count > Self.events.count, "the run did something: \(library)")
        #expect(daemon == library)
    }

    /// MobiusCore's loop, started the way `MobiusController` starts one.
    private func libraryRun(from start: Dial) -> [Step] {
        let steps = Recorder<Step>()
        let effects = EffectRouter<DialEffect, DialEvent>()
            .routeEffects(withParameters: { (effect: DialEffect) -> DialEffect? in effect })
            .to { effect in steps.append(.effect(effect)) }
            .asConnectable
        var model = start
        let first = dialInitiate(start).start(&model)
        let loop = Mobius.loop(update: Update(dialUpdate), effectHandler: effects).start(from: model, effects: first)
        defer { loop.dispose() }
        let observer = loop.addObserver { dial in steps.append(.model(dial)) }
        defer { observer.dispose() }
        for event in Self.events { loop.dispatchEvent(event) }
        // The observer replays the starting model when added, after the start-up effect ran.
        var values = steps.values
        if case .effect = values.first, case .model = values.dropFirst().first { values.swapAt(0, 1) }
        return values
    }

    /// The daemon's loop, one event per pass, models seen through a subscription.
    private func daemonRun(from start: Dial) throws -> [Step] {
        let recorded = Recorder<Step>()
        let router = EffectRouter<DialEffect, DialEvent>()
            .routeEffects(withParameters: { (effect: DialEffect) -> DialEffect? in effect })
            .to { effect in recorded.append(.effect(effect)) }
        let app = DaemonApp<Dial, DialEvent, DialEffect>(
            name: "dial", model: start, update: dialUpdate, initiate: dialInitiate, effects: router)
        let harness = try LoopHarness.withEffects(app)
        recorded.prepend(.model(harness.loop.state.model))
        harness.run([clientRequest(.subscribe(path: nil), line: 1)])
        let decoder = JSONValueDecoder(enumShape: .typeTagged)
        var steps = recorded.values
        var published = 0
        for event in Self.events {
            harness.run([.event(event, json: nil, source: .plugin, ticket: nil)])
            // Models in the order they were published, each before its pass's effects.
            let models = harness.timeline.models
            let effectsBefore = steps.count
            steps = recorded.values
            if models.count > published, let json = models.last?.line["model"] {
                steps.insert(.model(try decoder.decode(Dial.self, from: json)), at: effectsBefore)
                published = models.count
            }
            recorded.replace(with: steps)
        }
        return steps
    }
}

/// Appends values from any thread, in order.
fileprivate final class Recorder<Value>: @unchecked Sendable {
    // @unchecked: every access holds the lock.
    private let lock = Locked<[Value]>([])

    var values: [Value] { lock.withLock { $0 } }
    func append(_ value: Value) { lock.withLock { $0.append(value) } }
    func prepend(_ value: Value) { lock.withLock { $0.insert(value, at: 0) } }
    func replace(with values: [Value]) { lock.withLock { $0 = values } }
}
