import MobiusCore
import MobiusJSON
import Testing

@testable import MobiusDaemon

/// Order inside one loop pass (docs/protocol.md 1.3, 1.4): replies in request order, reads that see exactly the events
/// before them, seqs only for applied events, and replies before model publications before effects.
@Suite("Loop passes: order")
struct PassOrderTests {
    @Test("every input gets its reply in input order, across connections, in one delivery")
    func repliesInInputOrder() {
        let harness = LoopHarness(countingApp(recordingOn: Timeline()))
        let help = JSONLine.object([("ok", true), ("commands", [])])
        harness.run([
            clientEvent(Counting.add, line: 1),
            clientRequest(.ping, line: 1, connection: 2),
            .reply(help, ticket(2)),
            .rejected(.invalidJSON, "bad JSON", ticket(3)),
            clientEvent(Counting.add, line: 2, connection: 2),
            clientRequest(.hello, line: 4),
        ])
        #expect(harness.timeline.deliveries == 1, "one pass, one delivery")
        let replies = harness.timeline.replies
        #expect(replies.map(\.connection) == [1, 2, 1, 1, 2, 1])
        #expect(
            replies.map(\.answer) == [
                .ack(1),
                .line(["ok": true, "seq": 1]),
                .line(["ok": true, "commands": []]),
                .line(["ok": false, "error": ["code": "InvalidJSON", "message": "bad JSON"], "line": 3]),
                .ack(2),
                .line([
                    "ok": true, "protocol": 1, "daemon": "mobiusd", "version": "0-test", "app": "counting",
                    "epoch": "E1", "seq": 2, "ephemeral": false,
                ]),
            ])
    }

    @Test("a model read between two events sees exactly the first; a path reads one value, null when absent")
    func readsSeeTheEventsBeforeThem() throws {
        let harness = LoopHarness(StoreApp.make())
        let pathA = try JSONPointer("/a")
        harness.run([
            clientEvent(["type": "set", "path": "/a", "value": 1], line: 1),
            clientRequest(.model(path: nil), line: 2),
            clientEvent(["type": "set", "path": "/a", "value": 2], line: 3),
            clientRequest(.model(path: pathA), line: 4),
            clientRequest(.model(path: try JSONPointer("/b")), line: 5),
            clientEvent(["type": "set", "path": "/b", "value": true], line: 6),
            clientRequest(.subscribe(path: nil), line: 7),
        ])
        #expect(
            harness.timeline.answers == [
                .ack(1),
                .line(["ok": true, "seq": 1, "model": ["a": 1]]),
                .ack(2),
                .line(["ok": true, "seq": 2, "model": 2]),
                .line(["ok": true, "seq": 2, "model": nil]),
                .ack(3),
                .line(["ok": true, "seq": 3, "epoch": "E1", "model": ["a": 2, "b": true]]),
            ])
    }

    @Test("status counts the rejections before it and none after it")
    func statusCountsRejectionsBeforeIt() {
        let harness = LoopHarness(countingApp(recordingOn: Timeline()))
        harness.run([
            .rejected(.invalidJSON, "bad JSON", ticket(1)),
            clientEvent(Counting.add, line: 2),
            clientEvent(Counting.bad, line: 3),
            clientRequest(.status, line: 4),
            .rejected(.permissionDenied, "read-only", ticket(5)),
            clientEvent(Counting.bad, line: 6),
            clientEvent(Counting.add, line: 7),
            clientRequest(.status, line: 8),
        ])
        let statuses = harness.timeline.answers.filter { $0["app"] != nil }
        #expect(statuses.count == 2)
        #expect(statuses.first?["events"]?["accepted"] == 1)
        #expect(statuses.first?["events"]?["rejected"] == 2)
        #expect(statuses.first?["seq"] == 1)
        #expect(statuses.last?["events"]?["accepted"] == 2)
        #expect(statuses.last?["events"]?["rejected"] == 4)
        #expect(statuses.last?["seq"] == 2)
        #expect(harness.loop.state.rejected == 4 && harness.loop.state.accepted == 2)
    }

    @Test("seq numbers applied events only: 1, 2, 3… with no gaps, continuing across passes")
    func seqOnlyForAppliedEvents() {
        let harness = LoopHarness(countingApp(recordingOn: Timeline()))
        harness.run([
            clientEvent(Counting.add, line: 1),
            clientEvent(Counting.bad, line: 2),
            .rejected(.invalidEvent, "not an event", ticket(3)),
            clientEvent(Counting.quiet, line: 4),
            clientEvent(Counting.bad, line: 5),
            clientEvent(Counting.add, line: 6),
        ])
        #expect(harness.loop.state.seq == 3)
        harness.run([clientEvent(Counting.bad, line: 7), clientEvent(Counting.add, line: 8)])
        let acks = harness.timeline.answers.map { answer -> UInt64? in
            if case .ack(let seq) = answer { return seq }
            return nil
        }
        #expect(acks == [1, nil, nil, 2, nil, 3, nil, 4])
        #expect(harness.timeline.answers[1].errorCode == "InvalidEvent")
        #expect(harness.timeline.answers[1].errorMessage == "nope")
        #expect(harness.loop.state.seq == 4)
        #expect(harness.loop.state.model == 3, "the quiet event took a seq without changing the model")
    }

    @Test("a pass hands out its replies first, then the newest model once, then its effects in order")
    func repliesThenModelThenEffects() throws {
        let timeline = Timeline()
        let harness = try LoopHarness.withEffects(countingApp(recordingOn: timeline), timeline: timeline)
        harness.run([clientRequest(.subscribe(path: nil), line: 1, connection: 9)])
        timeline.clear()
        harness.run([clientEvent(Counting.add, line: 1), clientEvent(Counting.add, line: 2)])
        #expect(timeline.kinds == ["delivered", "model", "effect", "effect"])
        #expect(timeline.answers == [.ack(1), .ack(2)])
        #expect(timeline.models.map(\.line) == [["seq": 2, "model": 2]], "latest wins: one model line per pass")
        #expect(timeline.models.first?.to == [9])
        #expect(timeline.effects == [["type": "note", "count": 1], ["type": "note", "count": 2]])
    }

    /// The model on D-Bus: a caller answered next reads the state its event led to.
    @Test("the observer hears of the start, then of each applied pass before its replies; an undone pass: nothing")
    func observerBeforeReplies() throws {
        let timeline = Timeline()
        let harness = LoopHarness(
            countingApp(recordingOn: timeline), timeline: timeline,
            commits: CommitScript(outcomes: [.committed, .committed, .committed, .failed(.storageFailure, "disk")]),
            observes: true)
        #expect(timeline.handouts == [.committed(0, model: 0)], "the state it started at")
        timeline.clear()
        harness.run([clientEvent(Counting.add, line: 1), clientRequest(.ping, line: 2)])
        #expect(timeline.kinds == ["commit", "committed", "delivered"])
        #expect(timeline.handouts[1] == .committed(1, model: 1))
        timeline.clear()
        harness.run([clientRequest(.ping, line: 3)])
        #expect(timeline.kinds == ["commit", "delivered"], "a pass that applied nothing: \(timeline.handouts)")
        timeline.clear()
        harness.run([clientEvent(Counting.quiet, line: 4)])
        #expect(timeline.handouts.dropFirst().first == .committed(2, model: nil), "a new seq, the same model")
        timeline.clear()
        harness.run([clientEvent(Counting.add, line: 5)])
        #expect(timeline.kinds == ["commit", "delivered"], "undone: \(timeline.handouts)")
    }

    @Test("with a commit hook: commit, then replies, then the model, then effects")
    func commitComesFirst() throws {
        let timeline = Timeline()
        let harness = try LoopHarness.withEffects(
            countingApp(recordingOn: timeline), timeline: timeline,
            commits: CommitScript(outcomes: [.committed, .committed]))
        harness.run([clientRequest(.subscribe(path: nil), line: 1, connection: 9)])
        timeline.clear()
        harness.run([clientEvent(Counting.add, line: 1)])
        #expect(timeline.kinds == ["commit", "delivered", "model", "effect"])
        #expect(timeline.handouts.first == .commit([1]))
    }

    @Test("a monitor sees each event in line with the replies, then the model, then each effect before it runs")
    func monitorTraceOrder() throws {
        let timeline = Timeline()
        let harness = try LoopHarness.withEffects(countingApp(recordingOn: timeline), timeline: timeline)
        harness.run([clientRequest(.monitor, line: 1, connection: 5)])
        #expect(timeline.answers == [.line(["ok": true, "seq": 0])])
        timeline.clear()
        harness.run([clientEvent(Counting.add, line: 1), clientEvent(Counting.add, line: 2)])
        let note1: JSONValue = ["type": "note", "count": 1]
        let note2: JSONValue = ["type": "note", "count": 2]
        #expect(
            timeline.handouts == [
                .delivered([
                    .reply(1, .ack(1)),
                    .trace(5, ["trace": "event", "seq": 1, "event": Counting.add]),
                    .reply(1, .ack(2)),
                    .trace(5, ["trace": "event", "seq": 2, "event": Counting.add]),
                ]),
                .trace(["trace": "model", "seq": 2, "model": 2], to: [5]),
                .trace(["trace": "effect", "effect": note1], to: [5]),
                .effect(note1),
                .trace(["trace": "effect", "effect": note2], to: [5]),
                .effect(note2),
            ])
    }

    @Test("reply errors drops acks but keeps errors; reply off drops both; every rejection is still counted")
    func replyModes() {
        let harness = LoopHarness(countingApp(recordingOn: Timeline()))
        harness.run([
            clientEvent(Counting.add, line: 1, mode: .errors),
            clientEvent(Counting.bad, line: 2, mode: .errors),
            .rejected(.invalidJSON, "bad JSON", ticket(3, mode: .errors)),
            clientEvent(Counting.add, line: 4, mode: .off),
            clientEvent(Counting.bad, line: 5, mode: .off),
            .rejected(.invalidJSON, "bad JSON", ticket(6, mode: .off)),
            clientRequest(.ping, line: 7),
        ])
        let answers = harness.timeline.answers
        #expect(answers.count == 7, "one entry per line, even when it is no reply")
        #expect(answers[0] == .none)
        #expect(answers[1].errorCode == "InvalidEvent" && answers[1]["line"] == 2)
        #expect(answers[2].errorCode == "InvalidJSON" && answers[2]["line"] == 3)
        #expect(Array(answers[3...5]) == [.none, .none, .none])
        #expect(answers[6] == .line(["ok": true, "seq": 2]), "both events were applied")
        #expect(harness.loop.state.rejected == 4)
    }

    @Test("a subscriber that disconnects gets no further model lines")
    func disconnectedSubscriberGetsNothing() {
        let harness = LoopHarness(countingApp(recordingOn: Timeline()))
        harness.run([
            clientRequest(.subscribe(path: nil), line: 1, connection: 8),
            clientRequest(.subscribe(path: nil), line: 1, connection: 9),
        ])
        harness.timeline.clear()
        harness.run([clientEvent(Counting.add, line: 1), .disconnected(9)])
        #expect(harness.timeline.models.map(\.to) == [[8]])
        #expect(harness.loop.audienceBeforePass.subscriptions.count == 1)
    }

    @Test("status after a subscriber's disconnect in the same pass no longer counts it")
    func statusAfterDisconnectInSamePass() {
        let harness = LoopHarness(countingApp(recordingOn: Timeline()))
        harness.run([
            clientRequest(.subscribe(path: nil), line: 1, connection: 8),
            clientRequest(.subscribe(path: nil), line: 1, connection: 9),
            clientRequest(.monitor, line: 2, connection: 9),
        ])
        harness.run([.disconnected(9), clientRequest(.status, line: 1)])
        let status = harness.timeline.answers.last
        #expect(status?["monitors"] == 0)
        #expect(status?["subscribers"] == 1, "connection 9 is gone; only 8 still subscribes")
        harness.run([clientRequest(.status, line: 2)])
        #expect(harness.timeline.answers.last?["subscribers"] == 1)
    }

    @Test("events from effect handlers form the next pass; one round runs at most maxPassesPerRound passes")
    func effectEventsFormNextPasses() throws {
        // ping n → model n, effect pong n; the Swift route answers pong n with ping n+1 until 20.
        let router = EffectRouter<JSONValue, JSONValue>()
            .routeEffects(withParameters: { $0["type"] == "pong" ? $0["n"]?.int64Value : nil })
            .toEvent { n in n < 20 ? ["type": "ping", "n": .number(JSONNumber(n + 1))] : nil }
        let app = DaemonApp.json(
            name: "chain", model: 0,
            update: { _, event in .next(event["n"] ?? 0, effects: [["type": "pong", "n": event["n"] ?? 0]]) },
            effects: router)
        let harness = try LoopHarness.withEffects(app)
        let perRound = DaemonLoop<JSONValue, JSONValue, JSONValue>.maxPassesPerRound
        harness.run([clientEvent(["type": "ping", "n": 1], line: 1)])
        // Each pass applies one ping; its pong's event arrives during dispatch, for the next pass.
        #expect(harness.loop.state.seq == UInt64(perRound))
        #expect(harness.loop.state.model == .number(JSONNumber(perRound)))
        #expect(harness.anotherRoundRequests == 1, "it asked for another round instead of running on")
        #expect(harness.loop.hasQueuedInputs)
        harness.loop.runPasses()
        harness.loop.runPasses()
        #expect(harness.loop.state.seq == 20)
        #expect(harness.loop.state.model == 20)
        #expect(!harness.loop.hasQueuedInputs)
        #expect(harness.timeline.answers == [.ack(1)], "events from effects have no one to answer")
    }
}

@Suite("Loop passes: status queue depths")
struct PassStatusDepthTests {
    @Test("each status counts the inputs after it in its pass, however many statuses the pass has")
    func statusCountsWhatFollowsIt() {
        let harness = LoopHarness(countingApp(recordingOn: Timeline()), capacity: 30_000)
        let count = 20_000
        harness.run((1...count).map { clientRequest(.status, line: $0) })
        let statuses = harness.timeline.answers.filter { $0["app"] != nil }
        #expect(statuses.count == count)
        #expect(statuses.first?["queues"]?["client"] == .number(JSONNumber(count - 1)))
        #expect(statuses.dropFirst(9_999).first?["queues"]?["client"] == .number(JSONNumber(count - 10_000)))
        #expect(statuses.last?["queues"]?["client"] == 0)
    }

    @Test("events from other sources after a status count under their own kind")
    func otherKindsAreCountedApart() {
        let harness = LoopHarness(countingApp(recordingOn: Timeline()))
        harness.run([
            clientRequest(.status, line: 1),
            .event(Counting.add, json: nil, source: .effect, ticket: nil),
            clientEvent(Counting.add, line: 2),
            clientRequest(.status, line: 3),
            .event(Counting.add, json: nil, source: .timer, ticket: nil),
        ])
        let statuses = harness.timeline.answers.filter { $0["app"] != nil }
        #expect(statuses.first?["queues"]?["effect"] == 1)
        #expect(statuses.first?["queues"]?["client"] == 2)
        #expect(statuses.first?["queues"]?["timer"] == 1)
        #expect(statuses.last?["queues"]?["client"] == 0)
        #expect(statuses.last?["queues"]?["timer"] == 1)
    }
}
