import MobiusCore
import MobiusJSON
import MobiusSystem
import MobiusTestSupport
import Testing

@testable import MobiusDaemon

/// The commit hook between computing a pass and handing it out (docs/protocol.md 1.4): nothing of a pass leaves the
/// loop before it is committed, and a failed commit undoes the pass.
@Suite("Loop passes: commit")
struct PassCommitTests {
    /// A counting app with a recorded effect route and built-ins, one subscriber (9) and one applied event.
    func committedHarness() throws -> (LoopHarness<JSONValue, JSONValue, JSONValue>, ScriptedCommitHook) {
        let timeline = Timeline()
        let harness = try LoopHarness.withEffects(
            countingApp(recordingOn: timeline), timeline: timeline, commits: CommitScript(outcomes: [.committed]))
        let hook = harness.hook
        harness.run([clientRequest(.subscribe(path: nil), line: 1, connection: 9), clientEvent(Counting.add, line: 1)])
        #expect(timeline.answers.last == .ack(1))
        timeline.clear()
        return (harness, hook)
    }

    @Test("a failed commit hands out nothing but StorageFailure replies and reads against the state before it")
    func failedCommitLeaksNothing() throws {
        let (harness, hook) = try committedHarness()
        hook.outcomes = [.failed(.storageFailure, "disk full")]
        harness.run([
            clientEvent(Counting.add, line: 2),
            clientRequest(.model(path: nil), line: 3),
            clientEvent(Counting.unroutable, line: 4, connection: 2, mode: .errors),
            clientRequest(.status, line: 5),
            clientEvent(Counting.add, line: 6, connection: 3, mode: .off),
            clientRequest(.ping, line: 7),
        ])
        let timeline = harness.timeline
        #expect(hook.passes.last?.recorded.map(\.seq) == [2, 3, 4], "the hook saw the pass as computed")
        #expect(timeline.kinds == ["commit", "delivered"], "no model line, no effect")
        let answers = timeline.answers
        #expect(answers.count == 6)
        for index in [0, 2] {
            #expect(answers[index].errorCode == "StorageFailure")
            #expect(answers[index].errorMessage == "disk full")
        }
        #expect(answers[0]["line"] == 2 && answers[2]["line"] == 4)
        #expect(answers[1] == .line(["ok": true, "seq": 1, "model": 1]), "the read sees the state before the pass")
        #expect(answers[3]["seq"] == 1)
        #expect(answers[3]["events"]?["accepted"] == 1)
        #expect(answers[3]["events"]?["rejected"] == 2, "status counts the two events before it")
        #expect(answers[4] == .none, "reply off: no reply, but still not applied")
        #expect(answers[5] == .line(["ok": true, "seq": 1]))
        #expect(harness.stats.unhandledEffects.load(ordering: .relaxed) == 0, "no effect was dispatched")
        #expect(harness.loop.state.seq == 1)
        #expect(harness.loop.state.model == 1)
        #expect(harness.loop.state.accepted == 1)
        #expect(harness.loop.state.rejected == 3)
    }

    @Test("after a failed commit the next committing pass works normally and takes the next seq")
    func passAfterFailedCommit() throws {
        let (harness, hook) = try committedHarness()
        hook.outcomes = [.failed(.storageFailure, "disk full"), .committed]
        harness.run([clientEvent(Counting.add, line: 2), clientEvent(Counting.add, line: 3)])
        harness.timeline.clear()
        harness.run([clientEvent(Counting.add, line: 4)])
        #expect(hook.passes.last?.recorded.map(\.seq) == [2])
        #expect(harness.timeline.kinds == ["commit", "delivered", "model", "effect"])
        #expect(harness.timeline.answers == [.ack(2)])
        #expect(harness.timeline.models.map(\.line) == [["seq": 2, "model": 2]])
        #expect(harness.timeline.effects == [["type": "note", "count": 2]])
    }

    /// The soak found effects' failure reports (`onError` events) and results lost this way: the events of a failed
    /// pass that no client sent were rejected with nobody told (docs/reliability.md, "Soak").
    @Test("a failed commit queues again the events nobody can resend (plugins, timers); a later pass applies them")
    func eventsWithoutASenderAreRetried() throws {
        let (harness, hook) = try committedHarness()
        hook.outcomes = [.failed(.storageFailure, "disk full"), .committed]
        let fromPlugin = PassInput<JSONValue>.event(Counting.add, json: Counting.add, source: .plugin, ticket: nil)
        let fromTimer = PassInput<JSONValue>.event(Counting.quiet, json: Counting.quiet, source: .timer, ticket: nil)
        harness.run([fromPlugin, clientEvent(Counting.add, line: 2), fromTimer])
        harness.loop.runPasses()
        #expect(harness.timeline.answers.map(\.errorCode) == ["StorageFailure"], "the client is told")
        #expect(
            hook.passes.last?.recorded.map(\.event) == [Counting.add, Counting.quiet],
            "the plugin's and the timer's events, in their order, in the next pass")
        #expect(harness.loop.state.seq == 3)
        #expect(harness.loop.state.model == 2)
        #expect(harness.stats.sourceEventsRejected.load(ordering: .relaxed) == 0)
    }

    @Test("a hook that keeps passes in memory gets each pass after its replies, model line and effects")
    func inMemoryHookComesAfterTheReplies() throws {
        let timeline = Timeline()
        let harness = try LoopHarness.withEffects(
            countingApp(recordingOn: timeline), timeline: timeline, commits: CommitScript(inMemory: true))
        let hook = harness.hook
        harness.run([clientRequest(.subscribe(path: nil), line: 1, connection: 9), clientEvent(Counting.add, line: 1)])
        harness.run([clientEvent(Counting.add, line: 2), clientEvent(Counting.add, line: 3)])
        #expect(hook.passes.map { $0.recorded.map(\.seq) } == [[1], [2, 3]], "every pass, every event, in order")
        #expect(
            timeline.kinds == [
                "delivered", "model", "effect", "commit", "delivered", "model", "effect", "effect", "commit",
            ])
        #expect(timeline.answers.suffix(3) == [.ack(1), .ack(2), .ack(3)])
        #expect(harness.loop.state.seq == 3)
    }

    @Test("a built-in effect of a failed pass is never carried out; of a committed pass it is")
    func builtinEffectOnlyAfterCommit() throws {
        let pair = try SocketPair()
        defer { pair.close() }
        let log = DaemonLog(threshold: .info, destination: pair.first)
        let collector = try LineCollector(reading: pair.second)
        let timeline = Timeline()
        let harness = try LoopHarness.withEffects(
            countingApp(recordingOn: timeline), timeline: timeline, log: log,
            commits: CommitScript(outcomes: [.failed(.storageFailure, "disk full"), .committed]))
        harness.run([clientEvent(Counting.beep, line: 1)])
        log.write(.info, "marker after the failed pass")
        log.flush(timeoutNanoseconds: 5_000_000_000)
        #expect(try collector.line(containing: "marker after the failed pass") != nil)
        #expect(!collector.lines.contains { $0.hasSuffix(" beep") || $0.hasSuffix(">beep") })
        harness.run([clientEvent(Counting.beep, line: 2)])
        log.flush(timeoutNanoseconds: 5_000_000_000)
        #expect(try collector.line(containing: "beep") != nil, "the committed pass's mobiusd.log effect was written")
        #expect(harness.stats.unhandledEffects.load(ordering: .relaxed) == 0)
    }

    @Test("an effect's event in a failed pass is not rejected for it; the next pass rejects it once, for its own fault")
    func sourceEventInFailedPassLoggedOnce() throws {
        let pair = try SocketPair()
        defer { pair.close() }
        let log = DaemonLog(threshold: .warning, destination: pair.first)
        let collector = try LineCollector(reading: pair.second)
        let harness = LoopHarness(
            countingApp(recordingOn: Timeline()), log: log,
            commits: CommitScript(outcomes: [.failed(.storageFailure, "disk full"), .committed, .committed]))
        harness.run([
            .event(Counting.bad, json: nil, source: .effect, ticket: nil),
            clientEvent(Counting.add, line: 1),
        ])
        harness.run([clientRequest(.status, line: 2)])
        log.write(.warning, "marker")
        log.flush(timeoutNanoseconds: 5_000_000_000)
        #expect(try collector.line(containing: "marker") != nil)
        let rejections = collector.lines.filter { $0.contains("rejected") }
        #expect(rejections.count == 1, "one event, one rejection: \(rejections)")
        #expect(rejections.first?.hasSuffix("nope") == true, "the app's reason, not the undone pass's")
        #expect(harness.loop.state.rejected == 2, "the client's event and the effect's, once each")
        #expect(harness.timeline.answers.last?["events"]?["rejectedFromOtherSources"] == 1, "status counts it once")
    }

    @Test("a subscription made in a failed pass is kept and gets the next committed model")
    func subscriptionInFailedPassIsKept() throws {
        let (harness, hook) = try committedHarness()
        hook.outcomes = [.failed(.storageFailure, "disk full"), .committed]
        harness.run([clientEvent(Counting.add, line: 2), clientRequest(.subscribe(path: nil), line: 1, connection: 4)])
        #expect(
            harness.timeline.answers.last == .line(["ok": true, "seq": 1, "epoch": "E1", "model": 1]),
            "answered against the state before the pass")
        harness.timeline.clear()
        harness.run([clientEvent(Counting.add, line: 3)])
        #expect(harness.timeline.models.map(\.line) == [["seq": 2, "model": 2]])
        #expect(harness.timeline.models.first?.to.sorted() == [4, 9])
    }

    @Test("an asynchronous commit holds everything back and no new pass starts; queued inputs form the next pass")
    func asynchronousCommit() throws {
        let timeline = Timeline()
        let harness = try LoopHarness.withEffects(
            countingApp(recordingOn: timeline), timeline: timeline, commits: CommitScript())
        let hook = harness.hook
        harness.run([clientRequest(.subscribe(path: nil), line: 1, connection: 9)])
        hook.finishPending(.committed)
        timeline.clear()

        harness.run([clientEvent(Counting.add, line: 1), clientRequest(.model(path: nil), line: 2)])
        #expect(harness.loop.isCommitting)
        #expect(timeline.kinds == ["commit"], "nothing is handed out before the commit")
        harness.run([clientEvent(Counting.add, line: 3), clientRequest(.model(path: nil), line: 4)])
        harness.run([clientEvent(Counting.add, line: 5)])
        #expect(hook.passes.count == 2, "no new pass while one waits for its commit")
        #expect(timeline.kinds == ["commit"])
        #expect(harness.loop.state.seq == 0, "nothing is applied before the commit")
        #expect(harness.loop.hasQueuedInputs)

        let roundsBefore = harness.anotherRoundRequests
        hook.finishPending(.committed)
        #expect(!harness.loop.isCommitting)
        #expect(harness.anotherRoundRequests == roundsBefore + 1, "the reactor is asked to come back for the queue")
        #expect(timeline.kinds == ["commit", "delivered", "model", "effect"])
        #expect(timeline.answers == [.ack(1), .line(["ok": true, "seq": 1, "model": 1])])
        #expect(harness.loop.state.seq == 1)

        timeline.clear()
        harness.loop.runPasses()
        #expect(hook.passes.count == 3)
        #expect(hook.passes.last?.recorded.map(\.seq) == [2, 3], "the inputs queued meanwhile form one pass")
        #expect(timeline.kinds == ["commit"])
        let roundsAfterQueue = harness.anotherRoundRequests
        hook.finishPending(.committed)
        #expect(timeline.answers == [.ack(2), .line(["ok": true, "seq": 2, "model": 2]), .ack(3)])
        #expect(timeline.models.map(\.line) == [["seq": 3, "model": 3]])
        #expect(
            harness.anotherRoundRequests == roundsAfterQueue,
            "nothing queued: no other round (the one that ran the hook's answer is enough)")
    }

    @Test("an asynchronous commit that fails rejects the pass; the inputs queued meanwhile then apply")
    func asynchronousFailure() throws {
        let harness = LoopHarness(countingApp(recordingOn: Timeline()), commits: CommitScript())
        let hook = harness.hook
        harness.run([clientEvent(Counting.add, line: 1)])
        harness.run([clientEvent(Counting.add, line: 2)])
        hook.finishPending(.failed(.storageFailure, "journal: no space left on device"))
        #expect(harness.timeline.answers.map(\.errorMessage) == ["journal: no space left on device"])
        harness.loop.runPasses()
        #expect(hook.passes.last?.recorded.map(\.seq) == [1], "the failed pass's seq is given again")
        hook.finishPending(.committed)
        #expect(harness.timeline.answers.last == .ack(1))
    }

    /// `inMemory`: a hook that keeps passes in memory, which gets each pass after its replies.
    @Test("the hook gets each applied event with its seq and JSON, and only those", arguments: [false, true])
    func hookReceivesAppliedEvents(inMemory: Bool) throws {
        let timeline = Timeline()
        let harness = LoopHarness(
            countingApp(recordingOn: timeline), timeline: timeline,
            commits: CommitScript(outcomes: [.committed, .committed], inMemory: inMemory))
        let hook = harness.hook
        harness.run([
            clientEvent(Counting.add, line: 1),
            clientEvent(Counting.bad, line: 2),
            .rejected(.invalidJSON, "bad JSON", ticket(3)),
            clientEvent(Counting.quiet, line: 4),
            .event(Counting.add, json: nil, source: .timer, ticket: nil),
        ])
        let entries = try #require(hook.passes.first?.recorded)
        #expect(entries.map(\.seq) == [1, 2, 3])
        #expect(entries.map(\.event) == [Counting.add, Counting.quiet, Counting.add])
        harness.run([clientRequest(.ping, line: 5)])
        #expect(hook.passes.count == 2)
        #expect(hook.passes.last?.records.isEmpty == true, "a pass of reads commits nothing")
        #expect(timeline.answers.last == .line(["ok": true, "seq": 3]))
    }

    @Test("a typed app's events reach the hook encoded by its codec", arguments: [false, true])
    func typedEventsAreEncoded(inMemory: Bool) throws {
        let app = DaemonApp<Tally, TallyCommand, String>(name: "tally", model: Tally(count: 0), update: Tally.update)
        let harness = LoopHarness(app, commits: CommitScript(outcomes: [.committed], inMemory: inMemory))
        let hook = harness.hook
        harness.run([
            .event(.add(2), json: nil, source: .client, ticket: ticket(1)),
            .event(.refuse, json: nil, source: .client, ticket: ticket(2)),
            .event(.add(5), json: nil, source: .effect, ticket: nil),
        ])
        #expect(hook.passes.first?.recorded.map(\.seq) == [1, 2])
        #expect(hook.passes.first?.recorded.map(\.event) == [["type": "add", "_0": 2], ["type": "add", "_0": 5]])
        #expect(harness.loop.state.model == Tally(count: 7))
    }
}

/// A typed app's model.
struct Tally: Codable, Equatable {
    var count: Int

    static func update(_ model: Tally, _ command: TallyCommand) throws -> Next<Tally, String> {
        switch command {
        case .add(let amount): return .next(Tally(count: model.count + amount))
        case .refuse: throw EventRejection("nope")
        case .fail: throw TallyError.broken
        }
    }
}

/// A typed app's events.
enum TallyCommand: Codable, Equatable {
    case add(Int)
    case refuse
    case fail
}

enum TallyError: Error, CustomStringConvertible {
    case broken

    var description: String { "the tally is broken" }
}
