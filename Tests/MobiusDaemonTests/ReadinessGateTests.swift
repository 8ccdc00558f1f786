import Synchronization
import Testing

@testable import MobiusDaemon

/// `READY=1` waits for every named hold: the gate is ready only once it is open and the last hold is released, runs
/// its actions exactly once, and ignores holds taken afterwards.
@Suite("Readiness gate", .timeLimit(.scaled(minutes: 1)))
struct ReadinessGateTests {
    @Test("an open gate with no holds is ready at once")
    func readyWithoutHolds() {
        let gate = ReadinessGate()
        let fired = Mutex(0)
        gate.whenReady { fired.withLock { $0 += 1 } }
        #expect(!gate.isReady, "not ready before start-up opens it")
        gate.open()
        #expect(gate.isReady)
        #expect(fired.withLock { $0 } == 1)
    }

    @Test("ready only after open and the last release; a second release and a late hold change nothing")
    func waitsForEveryHold() {
        let gate = ReadinessGate()
        let fired = Mutex(0)
        gate.whenReady { fired.withLock { $0 += 1 } }
        let plugin = gate.hold("plugin sound")
        let bus = gate.hold("dbus system")
        plugin.release()
        plugin.release()
        #expect(gate.pendingNames == ["dbus system"])
        gate.open()
        #expect(!gate.isReady, "a hold is still taken")
        #expect(fired.withLock { $0 } == 0)
        bus.release()
        #expect(gate.isReady)
        #expect(fired.withLock { $0 } == 1)
        let late = gate.hold("plugin restarted")
        #expect(gate.isReady, "a hold taken after ready holds nothing")
        #expect(gate.pendingNames.isEmpty)
        late.release()
        gate.whenReady { fired.withLock { $0 += 10 } }
        #expect(fired.withLock { $0 } == 11, "an action added after ready runs at once, the first not again")
    }

    @Test("holds released from many threads fire the actions once")
    func releasesFromThreads() throws {
        let gate = ReadinessGate()
        let fired = Mutex(0)
        gate.whenReady { fired.withLock { $0 += 1 } }
        let holds = (0..<8).map { gate.hold("part \($0)") }
        gate.open()
        let threads = try holds.map { hold in try spawnThread("test-release") { hold.release() } }
        for thread in threads { thread.join() }
        #expect(gate.isReady)
        #expect(fired.withLock { $0 } == 1)
    }
}
