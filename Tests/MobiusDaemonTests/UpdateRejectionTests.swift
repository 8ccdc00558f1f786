import MobiusCore
import MobiusJSON
import Testing

@testable import MobiusDaemon

/// Events the app refuses (docs/protocol.md 1.3 `InvalidEvent`) and models that would nest past JSON's limit
/// (docs/protocol.md 1.5): the sender is told why, the model is unchanged, the event gets no seq.
@Suite("Loop passes: failable update and model depth")
struct UpdateRejectionTests {
    static let limit = JSONParser.defaultMaxDepth

    @Test("a JSON app's update that throws EventRejection: InvalidEvent with its message, no seq, model kept")
    func jsonUpdateThrows() {
        let harness = LoopHarness(countingApp(recordingOn: Timeline()))
        harness.run([clientEvent(Counting.add, line: 1), clientEvent(Counting.bad, line: 2)])
        #expect(
            harness.timeline.answers.last
                == .line(["ok": false, "error": ["code": "InvalidEvent", "message": "nope"], "line": 2]))
        #expect(harness.loop.state.seq == 1)
        #expect(harness.loop.state.model == 1)
        #expect(harness.loop.state.rejected == 1)
    }

    @Test("any other error's description is the message, capped to keep the reply small")
    func otherErrorsAndLongMessages() {
        let long = String(repeating: "é", count: 400)
        let app = DaemonApp.json(
            name: "errors", model: 0,
            update: { _, event in
                if event == "long" { throw EventRejection(long) }
                throw TallyError.broken
            })
        let harness = LoopHarness(app)
        harness.run([clientEvent("other", line: 1), clientEvent("long", line: 2)])
        let answers = harness.timeline.answers
        #expect(answers.map(\.errorCode) == ["InvalidEvent", "InvalidEvent"])
        #expect(answers.first?.errorMessage == "the tally is broken")
        let message = answers.last?.errorMessage ?? ""
        #expect(message.hasSuffix("…"))
        #expect(message.dropLast().utf8.count <= EventRejection.maxMessageBytes)
        #expect(message.hasPrefix(String(repeating: "é", count: 200)), "cut on a character boundary")
        #expect(harness.loop.state.seq == 0)
    }

    @Test("a typed app's update that throws: InvalidEvent with the message, no seq, model kept")
    func typedUpdateThrows() {
        let app = DaemonApp<Tally, TallyCommand, String>(name: "tally", model: Tally(count: 0), update: Tally.update)
        let harness = LoopHarness(app)
        harness.run([
            .event(.add(3), json: nil, source: .client, ticket: ticket(1)),
            .event(.refuse, json: nil, source: .client, ticket: ticket(2)),
            .event(.fail, json: nil, source: .client, ticket: ticket(3)),
            .event(.add(1), json: nil, source: .client, ticket: ticket(4)),
        ])
        let answers = harness.timeline.answers
        #expect(answers[0] == .ack(1))
        #expect(answers[1].errorCode == "InvalidEvent" && answers[1].errorMessage == "nope")
        #expect(answers[2].errorCode == "InvalidEvent" && answers[2].errorMessage == "the tally is broken")
        #expect(answers[3] == .ack(2))
        #expect(harness.loop.state.model == Tally(count: 4))
    }

    @Test("a JSON model may reach 512 levels; the event that would take it deeper is rejected")
    func jsonModelDepth() {
        let app = DaemonApp.json(name: "deepening", model: nestedArray(depth: Self.limit - 2)) { model, _ in
            .next(.array([model]))
        }
        let harness = LoopHarness(app)
        harness.run((1...4).map { clientEvent("deeper", line: $0) })
        let answers = harness.timeline.answers
        #expect(Array(answers.prefix(2)) == [.ack(1), .ack(2)])
        for answer in answers.suffix(2) {
            #expect(answer.errorCode == "InvalidEvent")
            #expect(answer.errorMessage?.contains("too deep") == true)
        }
        #expect(harness.loop.state.seq == 2)
        #expect(harness.loop.state.model.nestingDepth == Self.limit)
    }

    @Test("a typed recursive model: the event that makes it too deep is rejected, the pass's earlier ones apply")
    func typedModelDepth() {
        let harness = LoopHarness(Nest.app(startingDepth: Self.limit - 2))
        harness.run([
            .event(.grow, json: nil, source: .client, ticket: ticket(1)),
            .event(.grow, json: nil, source: .client, ticket: ticket(2)),
            .event(.grow, json: nil, source: .client, ticket: ticket(3)),
            .event(.grow, json: nil, source: .client, ticket: ticket(4)),
        ])
        let answers = harness.timeline.answers
        #expect(Array(answers.prefix(2)) == [.ack(1), .ack(2)])
        for answer in answers.suffix(2) {
            #expect(answer.errorCode == "InvalidEvent")
            #expect(answer.errorMessage?.contains("too deep") == true)
        }
        #expect(harness.loop.state.seq == 2)
        #expect(harness.loop.state.model.depth == Self.limit)
        #expect(harness.loop.currentModelJSON()?.nestingDepth == Self.limit)

        harness.run([.event(.grow, json: nil, source: .client, ticket: ticket(5))])
        #expect(harness.timeline.answers.last?.errorCode == "InvalidEvent", "a pass of one event is checked too")
        harness.run([.event(.shrink, json: nil, source: .client, ticket: ticket(6))])
        #expect(harness.timeline.answers.last == .ack(3))
        #expect(harness.loop.state.model.depth == Self.limit - 1)
    }

    @Test("only the events kept reach the commit hook, in one commit")
    func typedModelDepthCommitsKeptEvents() {
        let harness = LoopHarness(
            Nest.app(startingDepth: Self.limit - 2), commits: CommitScript(outcomes: [.committed]))
        let hook = harness.hook
        harness.run([
            .event(.grow, json: nil, source: .client, ticket: ticket(1)),
            .event(.grow, json: nil, source: .client, ticket: ticket(2)),
            .event(.grow, json: nil, source: .client, ticket: ticket(3)),
        ])
        #expect(hook.passes.count == 1)
        #expect(hook.passes.first?.recorded.map(\.seq) == [1, 2])
        #expect(hook.passes.first?.recorded.map(\.event) == [["type": "grow"], ["type": "grow"]])
        #expect(harness.timeline.answers.last?.errorCode == "InvalidEvent")
    }

    @Test("a model at the nesting limit stays readable: every line about it nests at most one level deeper")
    func modelAtLimitIsReadable() {
        // The store keeps models up to 512 levels; a line wraps the model (or event) in one object, so clients
        // (mobiusctl included) parse the daemon's lines with a limit one level higher (docs/protocol.md).
        let lineParser = JSONParser(maxDepth: Self.limit + 1)
        let harness = LoopHarness(StoreApp.make())
        harness.run([
            clientRequest(.subscribe(path: nil), line: 1, connection: 7),
            clientRequest(.monitor, line: 1, connection: 8),
        ])
        harness.timeline.clear()
        harness.run([
            // The deepest event line a client can send (512 levels) makes the deepest model the store keeps.
            clientEvent(["type": "set", "path": "/a", "value": nestedArray(depth: Self.limit - 1)], line: 1),
            clientRequest(.model(path: nil), line: 2),
        ])
        #expect(harness.timeline.answers.first == .ack(1), "the store accepts a model exactly at the limit")
        #expect(harness.loop.state.model.nestingDepth == Self.limit)
        #expect(harness.timeline.lines.count == 4, "event trace, model reply, model line, model trace")
        for line in harness.timeline.lines {
            #expect(
                (try? lineParser.parse(line)) != nil,
                "a client cannot parse: \(String(decoding: line.prefix(40), as: UTF8.self))…")
            #expect(
                (try? JSONValue(parsing: line)) == nil, "the line does carry a value at the limit, one level down")
        }
    }

    @Test("depth is per event, not per pass: a later event of the pass that shrinks the model changes nothing")
    func typedModelTooDeepMidPass() {
        let harness = LoopHarness(Nest.app(startingDepth: Self.limit - 1))
        harness.run([
            .event(.grow, json: nil, source: .client, ticket: ticket(1)),
            .event(.grow, json: nil, source: .client, ticket: ticket(2)),
            .request(.model(path: nil), ticket(3)),
            .event(.shrink, json: nil, source: .client, ticket: ticket(4)),
        ])
        let answers = harness.timeline.answers
        #expect(answers[0] == .ack(1))
        #expect(answers[1].errorCode == "InvalidEvent", "this event made the model 513 levels deep")
        #expect(answers[2]["seq"] == 1, "the read sees the model of the first event")
        #expect(answers[2]["model"]?.nestingDepth == Self.limit)
        #expect(answers[3] == .ack(2))
        #expect(harness.loop.state.model.depth == Self.limit - 1)
    }
}

/// A typed model that nests one JSON level per `wrap`: `.empty` is `[]`, `.wrap(x)` is `[x]`.
indirect enum Nest: Codable {
    case empty
    case wrap(Nest)

    init(from decoder: any Decoder) throws {
        var container = try decoder.unkeyedContainer()
        self = container.isAtEnd ? .empty : .wrap(try container.decode(Nest.self))
    }

    func encode(to encoder: any Encoder) throws {
        var container = encoder.unkeyedContainer()
        if case .wrap(let inner) = self { try container.encode(inner) }
    }

    /// A nest `depth` JSON levels deep.
    static func ofDepth(_ depth: Int) -> Nest {
        var nest = Nest.empty
        for _ in 1..<max(1, depth) { nest = .wrap(nest) }
        return nest
    }

    /// How many JSON levels this nest has (iterative).
    var depth: Int {
        var current = self
        var depth = 1
        while case .wrap(let inner) = current {
            depth += 1
            current = inner
        }
        return depth
    }

    /// The events of the nesting app.
    enum Command: Codable {
        case grow
        case shrink
    }

    /// A typed app whose model grows one level per `grow` and loses one per `shrink`.
    static func app(startingDepth: Int) -> DaemonApp<Nest, Command, String> {
        DaemonApp(name: "nest", model: Nest.ofDepth(startingDepth)) { model, command in
            switch command {
            case .grow:
                return .next(.wrap(model))
            case .shrink:
                guard case .wrap(let inner) = model else { return .noChange }
                return .next(inner)
            }
        }
    }
}
