import Dispatch
import MobiusCore
import MobiusTest
import Testing

@Suite("TestLoop with a search backend on another queue")
struct TestLoopSearchTests {
    let catalog = ["apple", "apricot", "banana"]

    @Test("exhaust() waits for the answer from the backend queue and applies it")
    func exhaustAppliesAnswer() {
        let recorder = FailureRecorder()
        let loop = TestLoop(
            update: searchUpdate, model: SearchModel(), effectHandler: searchRouter(catalog: catalog),
            failFunction: recorder.fail)
        loop.send(.queryChanged("ap"))
        #expect(loop.model.searching)
        loop.exhaust()
        #expect(loop.model == SearchModel(query: "ap", results: ["apple", "apricot"], searching: false))
        loop.assertEffects([.search("ap")])
        loop.assertReceived([.results(["apple", "apricot"])])
        loop.finish()
        #expect(recorder.messages.isEmpty)
    }

    @Test("receive(_:) waits for one event and checks it")
    func receiveOneEvent() {
        let recorder = FailureRecorder()
        let loop = TestLoop(
            update: searchUpdate, model: SearchModel(), effectHandler: searchRouter(catalog: catalog),
            failFunction: recorder.fail)
        loop.send(.queryChanged("b"))
        loop.receive(.results(["banana"]))
        loop.send(.queryChanged("c"))
        loop.receive(.results(["cherry"]))
        loop.assertEffects([.search("b"), .search("c")])
        loop.finish()
        #expect(recorder.failures.count == 1)
        #expect(recorder.messages.first?.hasPrefix("TestLoop.receive failed: event differs") == true)
        #expect(recorder.messages.first?.contains("\n-     - \"cherry\"\n+   - results: 0 elements") == true)
    }

    @Test("The async exhaust() suspends until the backend answered")
    func asyncExhaust() async {
        let recorder = FailureRecorder()
        let loop = TestLoop(
            update: searchUpdate, model: SearchModel(), effectHandler: searchRouter(catalog: catalog),
            failFunction: recorder.fail)
        loop.send(.queryChanged("ban"))
        await loop.exhaust()
        #expect(loop.model.results == ["banana"])
        loop.skipEffects()
        loop.skipReceivedEvents()
        await loop.finish()
        #expect(recorder.messages.isEmpty)
    }

    @Test("finish() reports events the test did not assert")
    func unassertedEvent() throws {
        let recorder = FailureRecorder()
        let loop = TestLoop(
            update: searchUpdate, model: SearchModel(), effectHandler: searchRouter(catalog: catalog),
            failFunction: recorder.fail)
        loop.send(.queryChanged("apr"))
        loop.exhaust()
        loop.assertEffects([.search("apr")])
        loop.finish()
        let message = try #require(recorder.messages.first)
        #expect(recorder.failures.count == 1)
        #expect(message.hasPrefix("TestLoop: 1 received event(s) not asserted:"))
        #expect(message.contains("results"))
        #expect(message.contains("\"apricot\""))
    }
}
