import MobiusCore
import MobiusJSON
import Testing

@testable import MobiusDaemon

/// A reply as a test reads it: the ack's seq, the parsed line, or nothing.
enum Answer: Equatable, CustomStringConvertible {
    case ack(UInt64)
    case line(JSONValue)
    case none

    var description: String {
        switch self {
        case .ack(let seq): "ack \(seq)"
        case .line(let value): "\(value)"
        case .none: "none"
        }
    }

    /// The error code of an error reply.
    var errorCode: String? {
        guard case .line(let value) = self else { return nil }
        return value["error"]?["code"]?.stringValue
    }

    /// The error message of an error reply.
    var errorMessage: String? {
        guard case .line(let value) = self else { return nil }
        return value["error"]?["message"]?.stringValue
    }

    /// A member of a line reply.
    subscript(key: String) -> JSONValue? {
        guard case .line(let value) = self else { return nil }
        return value[key]
    }
}

/// Everything the loop handed out, in the order it did, so tests can check both content and order.
enum Handout: Equatable {
    /// One `deliver` call: replies and trace lines.
    case delivered([Delivery])
    /// One model line for subscribers.
    case model(JSONValue, to: [ConnectionID])
    /// One model or effect trace line for monitors.
    case trace(JSONValue, to: [ConnectionID])
    /// A Swift effect handler ran with this effect.
    case effect(JSONValue)
    /// The commit hook was asked to commit these seqs.
    case commit([UInt64])
    /// The observer (the model on D-Bus) was told of a committed seq, with the model when it changed.
    case committed(UInt64, model: JSONValue?)

    enum Delivery: Equatable {
        case reply(ConnectionID, Answer)
        case trace(ConnectionID, JSONValue)
        /// A control command to carry out (the harness has no handler).
        case control(ConnectionID)
    }
}

/// The shared record the sink, the commit hook and effect handlers write to.
final class Timeline {
    var handouts: [Handout] = []
    /// Every line handed out (replies, model lines, traces), as bytes, for checks on the wire form.
    var lines: [[UInt8]] = []

    /// Every reply delivered so far, in order.
    var replies: [(connection: ConnectionID, answer: Answer)] {
        handouts.flatMap { handout -> [(connection: ConnectionID, answer: Answer)] in
            guard case .delivered(let deliveries) = handout else { return [] }
            return deliveries.compactMap { delivery in
                guard case .reply(let connection, let answer) = delivery else { return nil }
                return (connection, answer)
            }
        }
    }

    /// The answers of every reply so far, in order.
    var answers: [Answer] { replies.map(\.answer) }

    /// Model lines published to subscribers.
    var models: [(line: JSONValue, to: [ConnectionID])] {
        handouts.compactMap { handout in
            guard case .model(let line, let connections) = handout else { return nil }
            return (line, connections)
        }
    }

    /// Effects the Swift handler ran.
    var effects: [JSONValue] {
        handouts.compactMap { handout in
            guard case .effect(let effect) = handout else { return nil }
            return effect
        }
    }

    /// How many `deliver` calls there were.
    var deliveries: Int {
        handouts.count { if case .delivered = $0 { true } else { false } }
    }

    /// Each handout's kind, for order checks: `delivered`, `model`, `trace`, `effect`, `commit`.
    var kinds: [String] {
        handouts.map { handout in
            switch handout {
            case .delivered: "delivered"
            case .model: "model"
            case .trace: "trace"
            case .effect: "effect"
            case .commit: "commit"
            case .committed: "committed"
            }
        }
    }

    func clear() {
        handouts.removeAll()
        lines.removeAll()
    }
}

/// A `LoopOutputSink` (and, when the harness asks, the committed-state observer) that records into a timeline.
final class RecordingSink: LoopOutputSink, CommittedStateObserver {
    let timeline: Timeline

    init(_ timeline: Timeline) {
        self.timeline = timeline
    }

    func deliver(_ outputs: [PassOutput], writeNow: Bool) {
        timeline.handouts.append(
            .delivered(
                outputs.map { output in
                    switch output {
                    case .reply(let connection, .ack(let seq)): .reply(connection, .ack(seq))
                    case .reply(let connection, .none): .reply(connection, .none)
                    case .reply(let connection, .line(let line)): .reply(connection, .line(parse(line)))
                    case .trace(let connection, let line): .trace(connection, parse(line))
                    case .control(let ticket, _): .control(ticket.connection)
                    }
                }))
    }

    func publishModel(_ line: [UInt8], to connections: [ConnectionID]) {
        timeline.handouts.append(.model(parse(line), to: connections))
    }

    func trace(_ line: [UInt8], to connections: [ConnectionID]) {
        timeline.handouts.append(.trace(parse(line), to: connections))
    }

    func startLog(_ connection: ConnectionID, _ start: LogStreamStart) {}

    func committed(seq: UInt64, model: JSONValue?) {
        timeline.handouts.append(.committed(seq, model: model))
    }

    /// Records and parses one output line, which must be one JSON value ending in a newline. Parsed with room to
    /// spare in nesting, so that tests of the nesting limit can check the wire form themselves (`timeline.lines`).
    private func parse(_ line: [UInt8]) -> JSONValue {
        timeline.lines.append(line)
        #expect(line.last == UInt8(ascii: "\n"), "every line the loop hands out ends in a newline")
        #expect(line.dropLast().allSatisfy { $0 != UInt8(ascii: "\n") }, "one line, no embedded newline")
        do {
            return try JSONParser(maxDepth: 2 * JSONParser.defaultMaxDepth).parse(line)
        } catch {
            Issue.record("not JSON: \(String(decoding: line, as: UTF8.self)): \(error)")
            return .null
        }
    }
}

/// A commit hook that answers from a script, or keeps `done` for the test to call later.
final class ScriptedCommitHook: PassCommitHook {
    let timeline: Timeline
    /// Every pass it was asked to commit.
    private(set) var passes: [PassCommit] = []
    /// Outcomes for the next commits, in order; when it runs out, `done` is kept in `pending`.
    var outcomes: [CommitOutcome]
    /// The `done` of a commit the script had no outcome for.
    private(set) var pending: ((CommitOutcome) -> Void)?

    /// Acts like the ephemeral journal: every pass commits at once, in memory, and cannot fail.
    let inMemory: Bool

    init(_ timeline: Timeline, outcomes: [CommitOutcome] = [], inMemory: Bool = false) {
        self.timeline = timeline
        self.outcomes = outcomes
        self.inMemory = inMemory
    }

    var keepsPassesInMemory: Bool { inMemory }
    var firstLoggedSeq: UInt64? { nil }
    var isEphemeral: Bool { false }

    func commitAtOnce(_ pass: inout PassCommit) -> CommitOutcome? {
        guard inMemory else { return nil }
        passes.append(pass)
        timeline.handouts.append(.commit(pass.recorded.map(\.seq)))
        return .committed
    }

    func commit(_ pass: consuming PassCommit, done: @escaping (CommitOutcome) -> Void) {
        passes.append(pass)
        timeline.handouts.append(.commit(passes[passes.count - 1].recorded.map(\.seq)))
        if outcomes.isEmpty {
            #expect(pending == nil, "a new pass started while one waited for its commit")
            pending = done
        } else {
            done(outcomes.removeFirst())
        }
    }

    /// Ends the pending commit.
    func finishPending(_ outcome: CommitOutcome) {
        guard let done = pending else {
            Issue.record("no commit is pending")
            return
        }
        pending = nil
        done(outcome)
    }
}

/// How a harness's loop commits its passes.
struct CommitScript {
    /// The scripted hook's first outcomes (see `ScriptedCommitHook.outcomes`).
    var outcomes: [CommitOutcome] = []
    /// Commits at once, in memory, like the ephemeral journal.
    var inMemory = false
}

/// A loop with a recording sink, built the way the daemon builds it, for driving passes by hand.
final class LoopHarness<Model, Event, Effect> {
    let timeline: Timeline
    let sink: RecordingSink
    let stats: DaemonStats
    let log: DaemonLog
    let loop: DaemonLoop<Model, Event, Effect>
    /// The loop's commit hook; `nil` when the harness was made without a `CommitScript` (passes commit at once).
    let scriptedHook: ScriptedCommitHook?
    let dispatcher: EffectDispatcher<Model, Event, Effect>?
    private let rounds = RoundCounter()

    /// The scripted commit hook (the harness must have been made with a `CommitScript`).
    var hook: ScriptedCommitHook {
        guard let scriptedHook else { preconditionFailure("this harness was made without a commit script") }
        return scriptedHook
    }

    /// How often the loop asked the reactor for another round.
    var anotherRoundRequests: Int { rounds.count }

    /// - Parameters:
    ///   - timeline: where the sink records (pass the one the app's effect handlers record to).
    ///   - log: defaults to one that writes errors only (the loop logs none; warnings stay quiet).
    ///   - commits: a scripted commit hook; `nil` commits every pass at once, with no hook (or `journal`).
    ///   - journal: a real commit hook (a `DaemonJournal`), when there is no script.
    ///   - effects: runs effects the way the daemon does (Swift routes first, then built-ins on this reactor);
    ///     `nil` discards them.
    ///   - observes: the sink is also the loop's committed-state observer (`.committed` handouts).
    init(
        _ app: DaemonApp<Model, Event, Effect>, timeline: Timeline = Timeline(), capacity: Int = 1024,
        log: DaemonLog = DaemonLog(threshold: .error), commits: CommitScript? = nil,
        journal: (any PassCommitHook)? = nil, effects reactor: Reactor? = nil, observes: Bool = false
    ) {
        self.timeline = timeline
        let sink = RecordingSink(timeline)
        self.sink = sink
        self.log = log
        let stats = DaemonStats()
        self.stats = stats
        let hook = commits.map { ScriptedCommitHook(timeline, outcomes: $0.outcomes, inMemory: $0.inMemory) }
        self.scriptedHook = hook
        let rounds = self.rounds
        let loop = DaemonLoop(
            app: app, capacity: capacity, backpressure: EdgeBackpressure(), stats: stats, log: log, epoch: "E1",
            version: "0-test", commitHook: hook ?? journal, requestAnotherRound: { rounds.count += 1 },
            releaseElsewhere: nil)
        self.loop = loop
        // Events from synchronous Swift routes go straight back into the loop's queue, as in the daemon. Weakly: the
        // loop holds the dispatcher, and a harness dropped with both in a cycle would keep them, and the reactor's
        // descriptors, until the test process exits.
        self.dispatcher = reactor.map { reactor in
            let builtins = BuiltinEffects(log: log, reactor: reactor, dbus: nil) { _ in }
            return EffectDispatcher(app: app, log: log, stats: stats, builtins: builtins, plugins: nil) {
                [weak loop] event in
                loop?.enqueue(.event(event, json: nil, source: .effect, ticket: nil))
            }
        }
        // No pass runs before the loop has started (the app's initiate has run).
        loop.start(
            LoopOutlets(
                sink: sink, dispatcher: dispatcher, externalUpdate: nil, statusMembers: { [] },
                observer: observes ? sink : nil))
    }

    /// A harness whose loop runs effects the way the daemon does.
    static func withEffects(
        _ app: DaemonApp<Model, Event, Effect>, timeline: Timeline = Timeline(), capacity: Int = 1024,
        log: DaemonLog = DaemonLog(threshold: .error), commits: CommitScript? = nil,
        journal: (any PassCommitHook)? = nil
    ) throws -> LoopHarness {
        LoopHarness(
            app, timeline: timeline, capacity: capacity, log: log, commits: commits, journal: journal,
            effects: try Reactor())
    }

    /// Enqueues the inputs and runs passes.
    func run(_ inputs: [PassInput<Event>]) {
        for input in inputs { loop.enqueue(input) }
        loop.runPasses()
    }

    deinit {
        dispatcher?.dispose()
    }
}

/// Counts the loop's requests for another round.
final class RoundCounter {
    var count = 0
}

/// A client's ticket for one request line.
func ticket(_ line: Int, connection: ConnectionID = 1, mode: ReplyMode = .on) -> ReplyTicket {
    ReplyTicket(connection: connection, line: line, mode: mode)
}

/// An event from a client, as JSON (how JSON apps receive them).
func clientEvent(
    _ event: JSONValue, line: Int, connection: ConnectionID = 1, mode: ReplyMode = .on
) -> PassInput<JSONValue> {
    .event(event, json: event, source: .client, ticket: ticket(line, connection: connection, mode: mode))
}

/// A read request from a client.
func clientRequest<Event>(_ request: LoopRequest, line: Int, connection: ConnectionID = 1) -> PassInput<Event> {
    .request(request, ticket(line, connection: connection))
}

/// A JSON value nested `depth` levels deep: `[[…[]…]]`, built without recursion.
func nestedArray(depth: Int) -> JSONValue {
    var value: JSONValue = .array([])
    for _ in 1..<max(1, depth) { value = .array([value]) }
    return value
}

/// An effect route that records effects of type `note` on the timeline (other effects go to built-ins).
func recordingNotes(on timeline: Timeline) -> EffectRouter<JSONValue, JSONValue> {
    // Spelled out: with the parameter type inferred, `nil` would be JSONValue's own null literal and the route
    // would take every effect.
    EffectRouter<JSONValue, JSONValue>()
        .routeEffects(withParameters: { (effect: JSONValue) -> JSONValue? in
            guard effect["type"] == "note" else { return Optional.none }
            return effect
        })
        .to { effect in timeline.handouts.append(.effect(effect)) }
}

/// A JSON app for pass tests. The model is a count.
/// - `{"type":"add"}`: count + 1, and the effect `{"type":"note","count":N}` (a Swift route records notes);
/// - `{"type":"quiet"}`: applied, no model change, no effect;
/// - `{"type":"bad"}`: the update throws `EventRejection("nope")`;
/// - `{"type":"unroutable"}`: no model change, an effect nothing handles (counted in `unhandledEffects`);
/// - `{"type":"beep"}`: no model change, the built-in `mobiusd.log` effect with message `beep`.
func countingApp(recordingOn timeline: Timeline) -> DaemonApp<JSONValue, JSONValue, JSONValue> {
    DaemonApp.json(
        name: "counting", model: 0,
        update: { model, event in
            let count = model.int64Value ?? 0
            switch event["type"]?.stringValue {
            case "add":
                return .next(
                    .number(JSONNumber(count + 1)),
                    effects: [["type": "note", "count": .number(JSONNumber(count + 1))]])
            case "quiet":
                return .noChange
            case "bad":
                throw EventRejection("nope")
            case "unroutable":
                return .dispatchEffects([["type": "nobody.handles.this"]])
            case "beep":
                return .dispatchEffects([["type": "mobiusd.log", "level": "notice", "message": "beep"]])
            default:
                throw EventRejection("unknown event")
            }
        },
        effects: recordingNotes(on: timeline))
}

/// The events of `countingApp`.
enum Counting {
    static let add: JSONValue = ["type": "add"]
    static let quiet: JSONValue = ["type": "quiet"]
    static let bad: JSONValue = ["type": "bad"]
    static let unroutable: JSONValue = ["type": "unroutable"]
    static let beep: JSONValue = ["type": "beep"]
}

extension PassCommit {
    /// The pass's records read back: seq and event of each, in order (a record that does not parse is reported).
    var recorded: [(seq: UInt64, event: JSONValue)] {
        records.withUnsafeBytes { raw in
            var found: [(seq: UInt64, event: JSONValue)] = []
            var offset = 0
            while offset < raw.count {
                guard case .record(let record, let next) = JournalRecord.parse(raw, at: offset, verify: false),
                    let event = try? JSONParser().parse(record.event)
                else {
                    Issue.record("the pass's records do not parse at byte \(offset)")
                    break
                }
                #expect(record.time == time, "every record of a pass carries the pass's time")
                found.append((record.seq, event))
                offset = next
            }
            return found
        }
    }
}
