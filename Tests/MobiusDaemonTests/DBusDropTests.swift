import MobiusJSON
import MobiusSystem
import MobiusTestSupport
import Testing

@testable import MobiusDaemon

/// A signal the bus thread cannot hand to the loop is dropped, counted, and logged with the bound that refused it
/// (docs/dbus.md, "A flood"): the bus's memory budget or its full inbox, never one reason for both.
@Suite("D-Bus drops")
struct DBusDropTests {
    private func worker(log: DaemonLog) throws -> DBusBusWorker {
        let json = try JSONValue(parsing: #"{"dbus":[{"bus":"system","type":"t"}]}"#)
        let sources = try DaemonConfig(json: json, baseDirectory: "/").dbus
        return try DBusBusWorker(bus: "system", sources: sources, log: log, wakeLoop: {}, settled: {})
    }

    @Test("an event over the bus's budget is dropped naming the budget; a full inbox names the loop")
    func reasons() throws {
        let pair = try SocketPair()
        defer { pair.close() }
        let log = DaemonLog(threshold: .warning, destination: pair.first)
        let collector = try LineCollector(reading: pair.second)
        let worker = try worker(log: log)
        #expect(!worker.post(["type": "t"], cost: DBusReadLimits.busBudget + 1, source: 0))
        for _ in 0..<DBusBusWorker.inboxCapacity {
            #expect(worker.post(["type": "t"], cost: 1, source: 0))
        }
        #expect(!worker.post(["type": "t"], cost: 1, source: 0))
        log.flush(timeoutNanoseconds: 5_000_000_000)
        let budget = try collector.line(containing: "over the bus's budget of 67108864 bytes")
        #expect(budget?.contains("dropped an event for t") == true, "\(collector.lines)")
        #expect(try collector.line(containing: "4096 events are waiting for the loop (the loop is behind)") != nil)
        #expect(worker.statuses[0].snapshot.dropped == 2)
        worker.stop()
    }
}
