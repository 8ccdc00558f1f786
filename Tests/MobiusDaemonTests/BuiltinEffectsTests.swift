import MobiusJSON
import MobiusSystem
import Testing

@testable import MobiusDaemon

/// The daemon's own effects (keys starting with `mobiusd.`): `mobiusd.after` delivers its event later through a
/// reactor timer; malformed built-ins fail with a message; other keys are not built-ins.
@Suite("Built-in effects")
struct BuiltinEffectsTests {
    /// What the reactor thread saw; read after the reactor thread is joined.
    final class Delivered {
        var events: [(event: JSONValue, at: UInt64)] = []
    }

    static func effects(_ reactor: Reactor, into delivered: Delivered, stopAfter count: Int) -> BuiltinEffects {
        let log = DaemonLog(threshold: .error)
        return BuiltinEffects(log: log, reactor: reactor, dbus: nil) { event in
            delivered.events.append((event, SystemProcess.monotonicNanoseconds()))
            if delivered.events.count == count { reactor.stop() }
        }
    }

    @Test("mobiusd.after delivers each event after its delay, in deadline order, on the reactor thread")
    func afterDeliversLater() throws {
        let reactor = try Reactor()
        let delivered = Delivered()
        let builtins = Self.effects(reactor, into: delivered, stopAfter: 2)
        let start = SystemProcess.monotonicNanoseconds()
        #expect(
            try builtins.handle(
                ["type": "mobiusd.after", "seconds": 0.05, "event": ["type": "late"]], key: "mobiusd.after"))
        #expect(
            try builtins.handle(
                ["type": "mobiusd.after", "seconds": 0, "event": ["type": "now"]], key: "mobiusd.after"))
        try runReactor(reactor)
        #expect(delivered.events.map(\.event) == [["type": "now"], ["type": "late"]])
        let late = delivered.events.last.map { $0.at - start } ?? 0
        #expect(late >= 50_000_000, "the 50 ms timer did not fire early (\(late) ns)")
    }

    @Test(
        "a malformed mobiusd.after fails naming what is wrong and schedules nothing",
        arguments: [
            ["type": "mobiusd.after", "event": ["type": "x"]] as JSONValue,
            ["type": "mobiusd.after", "seconds": -1, "event": ["type": "x"]],
            ["type": "mobiusd.after", "seconds": 1e300, "event": ["type": "x"]],
            ["type": "mobiusd.after", "seconds": "soon", "event": ["type": "x"]],
            ["type": "mobiusd.after", "seconds": 1],
        ])
    func afterRejectsMalformed(effect: JSONValue) throws {
        let reactor = try Reactor()
        let builtins = Self.effects(reactor, into: Delivered(), stopAfter: 1)
        #expect(throws: BuiltinEffects.Failure.self) { try builtins.handle(effect, key: "mobiusd.after") }
    }

    @Test("keys that are not built-ins are left to other handlers; mobiusd.log is handled")
    func otherKeys() throws {
        let reactor = try Reactor()
        let builtins = Self.effects(reactor, into: Delivered(), stopAfter: 1)
        #expect(try builtins.handle(["type": "beep"], key: "beep") == false)
        #expect(try builtins.handle(["type": "mobiusd.unknown"], key: "mobiusd.unknown") == false)
        #expect(try builtins.handle(["type": "mobiusd.log", "message": "hi"], key: "mobiusd.log"))
    }
}
