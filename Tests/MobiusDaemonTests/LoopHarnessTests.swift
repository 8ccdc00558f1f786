import MobiusJSON
import Testing

@testable import MobiusDaemon

/// The pass tests' harness itself: what a test drops is freed, so that no test's loop, reactor and descriptors
/// outlive it (and LeakSanitizer finds none of them when the test process exits: make sanitize).
@Suite("Loop harness")
struct LoopHarnessTests {
    @Test("a harness whose loop runs effects frees its loop and dispatcher when the test drops it")
    func droppedHarnessFreesItsLoop() throws {
        weak var loop: DaemonLoop<JSONValue, JSONValue, JSONValue>?
        weak var dispatcher: EffectDispatcher<JSONValue, JSONValue, JSONValue>?
        do {
            let timeline = Timeline()
            let harness = try LoopHarness.withEffects(countingApp(recordingOn: timeline), timeline: timeline)
            harness.run([clientEvent(Counting.add, line: 1)])
            #expect(timeline.effects == [["type": "note", "count": 1]], "the effect went through the dispatcher")
            loop = harness.loop
            dispatcher = harness.dispatcher
        }
        #expect(loop == nil, "the loop outlived its harness")
        #expect(dispatcher == nil, "the dispatcher outlived its harness")
    }
}
