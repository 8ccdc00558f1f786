import MobiusJSON
import MobiusSystem
import Synchronization
import Testing

@testable import MobiusDaemon

/// Producers on other threads reach the loop through an `EventInbox` attached to it: items arrive in order as
/// events of the inbox's source, a full inbox blocks or drops by policy, and the loop takes only what it has room
/// for.
@Suite("Event inbox into the loop", .timeLimit(.scaled(minutes: 1)))
struct EventInboxTests {
    /// A JSON app whose model lists the events it applied.
    static func listingApp() -> DaemonApp<JSONValue, JSONValue, JSONValue> {
        DaemonApp.json(name: "listing", model: []) { model, event in
            .next(.array((model.arrayValue ?? []) + [event]))
        }
    }

    /// Attaches `inbox` the way the daemon attaches its effect inbox.
    static func attach(_ inbox: EventInbox<JSONValue>, to loop: DaemonLoop<JSONValue, JSONValue, JSONValue>) {
        loop.attach(inbox) { item in .event(item, json: nil, source: inbox.kind, ticket: nil) }
    }

    @Test("items posted from another thread arrive in order, as events from the inbox's source, after one wake-up")
    func itemsArriveInOrder() throws {
        let harness = LoopHarness(Self.listingApp())
        let wakes = Checkpoint(0)
        let inbox = EventInbox<JSONValue>(kind: .effect, capacity: 64, policy: .block) { wakes.update { $0 += 1 } }
        Self.attach(inbox, to: harness.loop)
        let producer = try spawnThread("test-producer") {
            for index in 0..<10 { inbox.post(.number(JSONNumber(index))) }
        }
        producer.join()
        #expect(wakes.current == 1, "the first item into an empty inbox wakes the reactor, the rest do not")
        #expect(harness.loop.queueDepths()[.effect] == 10)

        // The wake-up, as the reactor would run it; a status request queued first sees the inbox's events waiting.
        harness.loop.inboxHasItems()
        harness.run([clientRequest(.status, line: 1)])
        let status = try #require(harness.timeline.answers.first)
        #expect(status["queues"]?["effect"] == 10)
        #expect(status["queues"]?["client"] == 0)
        #expect(harness.loop.state.model == .array((0..<10).map { .number(JSONNumber($0)) }))
        #expect(harness.loop.state.seq == 10)
        #expect(harness.timeline.answers.count == 1, "events from an inbox have no one to answer")
        #expect(inbox.depth == 0)

        inbox.post("again")
        #expect(wakes.current == 2, "an inbox emptied by the loop wakes it again")
    }

    @Test("dropNewest: a full inbox refuses the item, counts it, and takes items again once the loop has room")
    func dropNewest() {
        let harness = LoopHarness(Self.listingApp())
        let inbox = EventInbox<JSONValue>(kind: .dbus, capacity: 2, policy: .dropNewest) {}
        Self.attach(inbox, to: harness.loop)
        #expect(inbox.post("a"))
        #expect(inbox.post("b"))
        #expect(!inbox.post("c"))
        #expect(!inbox.post("d"))
        #expect(inbox.droppedCount == 2)
        harness.loop.inboxHasItems()
        harness.run([clientRequest(.status, line: 1)])
        #expect(harness.loop.state.model == ["a", "b"])
        #expect(harness.timeline.answers.first?["queues"]?["dropped"] == ["dbus": 2], "status says what was dropped")
        #expect(inbox.post("e"))
        #expect(inbox.droppedCount == 2)
    }

    @Test("block: a producer waits while the inbox is full and goes on once the loop has taken items")
    func blockingProducer() throws {
        let harness = LoopHarness(Self.listingApp())
        let inbox = EventInbox<JSONValue>(kind: .effect, capacity: 2, policy: .block) {}
        Self.attach(inbox, to: harness.loop)
        // How many posts have returned, and whether each was accepted.
        let returned = Checkpoint<[Bool]>([])
        let producer = try spawnThread("test-producer") {
            for index in 0..<5 {
                let accepted = inbox.post(.number(JSONNumber(index)))
                returned.update { $0.append(accepted) }
            }
        }
        #expect(returned.wait { $0.count == 2 }, "two posts fit")
        // The third post must be held until the loop takes items: it has not returned within a generous while.
        #expect(!returned.wait(timeoutNanoseconds: 100_000_000) { $0.count > 2 }, "a full inbox holds its producer")
        #expect(inbox.depth == 2)

        harness.loop.inboxHasItems()
        harness.loop.runPasses()
        #expect(harness.loop.state.model == [0, 1])
        #expect(returned.wait { $0.count == 4 }, "room for two more lets the producer go on")
        harness.loop.inboxHasItems()
        harness.loop.runPasses()
        #expect(returned.wait { $0.count == 5 })
        producer.join()
        harness.loop.inboxHasItems()
        harness.loop.runPasses()
        #expect(harness.loop.state.model == [0, 1, 2, 3, 4], "nothing lost, nothing reordered")
        #expect(returned.current == Array(repeating: true, count: 5))
    }

    @Test("closing an inbox releases a blocked producer, whose item is refused")
    func closeReleasesProducer() throws {
        let inbox = EventInbox<JSONValue>(kind: .effect, capacity: 1, policy: .block) {}
        #expect(inbox.post(1))
        let outcome = Checkpoint<Bool?>(nil)
        let producer = try spawnThread("test-producer") {
            let accepted = inbox.post(2)
            outcome.update { $0 = accepted }
        }
        #expect(!outcome.wait(timeoutNanoseconds: 100_000_000) { $0 != nil }, "the producer waits for room")
        inbox.close()
        #expect(outcome.wait { $0 != nil })
        producer.join()
        #expect(outcome.current == false)
        #expect(!inbox.post(3), "later posts are refused")
    }

    @Test("the loop takes only what its queue has room for and drains a larger inbox over several passes")
    func loopTakesWhatFits() {
        let harness = LoopHarness(
            Self.listingApp(), capacity: 2, commits: CommitScript(outcomes: Array(repeating: .committed, count: 8)))
        let hook = harness.hook
        let inbox = EventInbox<JSONValue>(kind: .plugin, capacity: 16, policy: .dropNewest) {}
        Self.attach(inbox, to: harness.loop)
        for index in 0..<5 { inbox.post(.number(JSONNumber(index))) }
        harness.loop.inboxHasItems()
        harness.loop.runPasses()
        #expect(hook.passes.map { $0.recorded.count } == [2, 2, 1])
        #expect(harness.loop.state.model == [0, 1, 2, 3, 4])
        #expect(!harness.loop.hasQueuedInputs)
    }
}
