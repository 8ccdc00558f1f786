import MobiusCore

/// An exhaustive test harness for a loop: the real update function and the real effect handlers, driven step by
/// step from a test, where every effect and every event the handlers send must be asserted.
///
/// ```swift
/// let loop = TestLoop(update: update, model: 1, effectHandler: router)
/// loop.send(.decrement)
/// loop.exhaust()
/// loop.assertEffects([.playSound])
/// #expect(loop.model == 0)
/// loop.finish()
/// ```
///
/// Events are applied on the test's thread: `send` applies the test's own event; effect handlers may send events
/// from any thread or queue, and those wait in an inbox until `exhaust`, `receive` or an assertion applies them.
/// `finish()` reports every effect and received event the test did not assert (as does `deinit` if `finish()` was
/// never called), then disconnects the effect handler, which disposes effects still running.
///
/// Deliberately not `Sendable`: one test drives it, from one task at a time.
public final class TestLoop<Model, Event, Effect> {
    /// The model after the events applied so far. Events still in the inbox are not applied until the next
    /// `send`, `exhaust`, `receive` or assertion.
    public private(set) var model: Model

    /// Events the effect handlers sent, already applied, that the test has not asserted yet, oldest first.
    public internal(set) var receivedEvents: [Event] = []

    /// Effects dispatched (including start-up effects from `initiate`) that the test has not asserted yet,
    /// oldest first.
    public internal(set) var dispatchedEffects: [Effect] = []

    let update: Update<Model, Event, Effect>
    let failFunction: AssertionFailure
    let quietPeriod: Duration
    let inbox = EventInbox<Event>()
    private let connection: Connection<Effect>
    private let file: StaticString
    private let line: UInt
    private var isFinished = false
    /// Whether the loop has been idle since its last dispatched effect: exhaust then has nothing to wait for.
    var isSettled = true
    /// Effects dispatched since the loop was last idle, for naming what may still be running on a timeout.
    var effectsSinceSettled: [String] = []

    /// Creates a test loop and connects the effect handler; start-up effects from `initiate` are dispatched at once.
    ///
    /// - Parameters:
    ///   - update: the update function under test.
    ///   - initiate: turns `model` into the starting `First`; without it the loop starts from `model`, no effects.
    ///   - model: the starting model.
    ///   - effectHandler: the real effect handler, such as an `EffectRouter`.
    ///   - quietPeriod: how long no event may arrive before `exhaust` considers the handlers done. Handlers that
    ///     answer more slowly than this must be awaited with `receive`.
    ///   - failFunction: where failures go; the default records them in the running test.
    public init<Handler: Connectable>(
        update: Update<Model, Event, Effect>,
        initiate: Initiate<Model, Effect>? = nil,
        model: Model,
        effectHandler: Handler,
        quietPeriod: Duration = .milliseconds(100),
        failFunction: @escaping AssertionFailure = failTest,
        file: StaticString = #file,
        line: UInt = #line
    ) where Handler.Input == Effect, Handler.Output == Event {
        let first = initiate?(model) ?? First(model: model)
        self.update = update
        self.model = first.model
        self.quietPeriod = quietPeriod
        self.failFunction = failFunction
        self.file = file
        self.line = line
        let inbox = self.inbox
        // Routes connected under this observer report effects that are still running, so exhaust can wait for them.
        connection = EffectActivity.$observer.withValue(inbox) {
            effectHandler.connect { event in inbox.post(event) }
        }
        dispatch(first.effects)
    }

    /// Creates a test loop from an update function; see `init(update:initiate:model:effectHandler:...)`.
    public convenience init<Handler: Connectable>(
        update: @escaping (Model, Event) -> Next<Model, Effect>,
        initiate: Initiate<Model, Effect>? = nil,
        model: Model,
        effectHandler: Handler,
        quietPeriod: Duration = .milliseconds(100),
        failFunction: @escaping AssertionFailure = failTest,
        file: StaticString = #file,
        line: UInt = #line
    ) where Handler.Input == Effect, Handler.Output == Event {
        self.init(
            update: Update(update), initiate: initiate, model: model, effectHandler: effectHandler,
            quietPeriod: quietPeriod, failFunction: failFunction, file: file, line: line)
    }

    deinit {
        if !isFinished {
            reportUnasserted(file: file, line: line)
            disconnect()
        }
    }

    /// Applies `event` as if the user sent it, and dispatches the effects it produces. Only this event: what the
    /// effect handlers send (even synchronously) waits in the inbox for `exhaust`, `receive` or an assertion, so
    /// `model` right after `send` never depends on how fast a handler was. Sent events are not added to
    /// `receivedEvents`.
    ///
    /// Sending after `finish()` is a failure.
    public func send(_ event: Event, file: StaticString = #file, line: UInt = #line) {
        guard !isFinished else {
            failFunction("TestLoop.send(\(event)) after finish(): the loop is disconnected", file, line)
            return
        }
        apply(event)
    }

    /// Waits for the effect handlers to go quiet, then reports every effect and received event not asserted, and
    /// disconnects the effect handler (disposing effects still running). Later calls do nothing.
    public func finish(timeout: Duration = .seconds(1), file: StaticString = #file, line: UInt = #line) {
        guard !isFinished else { return }
        exhaust(timeout: timeout, file: file, line: line)
        reportUnasserted(file: file, line: line)
        disconnect()
    }

    /// Like the synchronous `finish`, but waits for the handlers with the async `exhaust`.
    nonisolated(nonsending)
        public func finish(timeout: Duration = .seconds(1), file: StaticString = #file, line: UInt = #line) async
    {
        guard !isFinished else { return }
        await exhaust(timeout: timeout, file: file, line: line)
        reportUnasserted(file: file, line: line)
        disconnect()
    }

    // MARK: - Running events

    /// Applies the events waiting in the inbox, oldest first, without waiting for more.
    ///
    /// - Parameter deadline: stop (returning `false`) when it passes, so handlers that answer every event with
    ///   another one cannot hang the test.
    @discardableResult
    func applyArrivedEvents(until deadline: ContinuousClock.Instant? = nil) -> Bool {
        while let event = inbox.takeFirst() {
            receivedEvents.append(event)
            apply(event)
            if let deadline, ContinuousClock.now >= deadline { return inbox.isEmpty }
        }
        return true
    }

    private func apply(_ event: Event) {
        let next = update.update(model: model, event: event)
        if let newModel = next.model {
            model = newModel
        }
        dispatch(next.effects)
    }

    private func dispatch(_ effects: [Effect]) {
        guard !effects.isEmpty else { return }
        isSettled = false
        effectsSinceSettled.append(contentsOf: effects.map { String(reflecting: $0) })
        dispatchedEffects.append(contentsOf: effects)
        for effect in effects {
            connection.accept(effect)
        }
    }

    private func reportUnasserted(file: StaticString, line: UInt) {
        applyArrivedEvents()
        if !dispatchedEffects.isEmpty {
            failFunction(
                "TestLoop: \(dispatchedEffects.count) effect(s) not asserted:\n\(Self.list(dispatchedEffects))", file,
                line)
        }
        if !receivedEvents.isEmpty {
            failFunction(
                "TestLoop: \(receivedEvents.count) received event(s) not asserted:\n\(Self.list(receivedEvents))",
                file, line)
        }
        dispatchedEffects.removeAll()
        receivedEvents.removeAll()
    }

    /// One value per line, indented, as `String(reflecting:)` shows it.
    private static func list<Value>(_ values: [Value]) -> String {
        values.map { "  \(String(reflecting: $0))" }.joined(separator: "\n")
    }

    private func disconnect() {
        isFinished = true
        inbox.close()
        connection.dispose()
    }
}
