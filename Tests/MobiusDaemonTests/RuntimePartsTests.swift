import MobiusJSON
import Testing

@testable import MobiusDaemon

@Suite("Runtime parts")
struct RuntimePartsTests {
    @Test("routing keys follow docs/protocol.md 2.4")
    func routingKeys() {
        #expect(EffectRoutingKey.of("beep") == "beep")
        #expect(EffectRoutingKey.of(["type": "mobiusd.log", "message": "x"]) == "mobiusd.log")
        #expect(EffectRoutingKey.of(["playSound": [:]]) == "playSound")
        #expect(EffectRoutingKey.of(["a": 1, "b": 2]) == nil)
        #expect(EffectRoutingKey.of(["type": 1, "b": 2]) == nil)
        #expect(EffectRoutingKey.of([1, 2]) == nil)
    }

    @Test("acks are formatted exactly, for small and large seq")
    func acks() {
        for seq: UInt64 in [0, 7, 10, 99, 1_000_000, .max] {
            var output: [UInt8] = []
            ReplyText.appendAck(seq, to: &output)
            #expect(String(decoding: output, as: UTF8.self) == "{\"ok\":true,\"seq\":\(seq)}\n")
        }
        var output = Array("{\"ok\":true}\n".utf8)
        ReplyText.appendAck(42, to: &output)
        #expect(String(decoding: output, as: UTF8.self) == "{\"ok\":true}\n{\"ok\":true,\"seq\":42}\n", "appends")
    }

    @Test("RFC 3339 timestamps, including leap days and the epoch")
    func timestamps() {
        #expect(RFC3339.format(seconds: 0, nanoseconds: 0, fractionDigits: 0) == "1970-01-01T00:00:00Z")
        #expect(
            RFC3339.format(seconds: 951_782_400, nanoseconds: 5_000_000, fractionDigits: 3)
                == "2000-02-29T00:00:00.005Z")
        #expect(RFC3339.format(seconds: 1_795_969_913, nanoseconds: 0, fractionDigits: 0) == "2026-11-29T16:31:53Z")
    }

    @Test("subscriptions: one value per distinct path, unchanged path values skipped, no repeat of the first reply")
    func subscriptions() throws {
        var hub = SubscriptionHub()
        let pathA = try JSONPointer("/a")
        hub.add(1, path: nil, seq: 1, value: ["a": 1, "b": 1])
        hub.add(2, path: pathA, seq: 1, value: 1)
        hub.add(3, path: pathA, seq: 1, value: 1)
        hub.add(3, path: pathA, seq: 1, value: 1)
        #expect(hub.count == 3, "re-subscribing replaces")
        var deliveries = hub.publish(seq: 2, model: ["a": 1, "b": 2]).map { ($0.value, $0.connections.sorted()) }
        #expect(deliveries.count == 1, "only the whole-model subscriber sees a change of b")
        #expect(deliveries.first?.1 == [1])
        deliveries = hub.publish(seq: 3, model: ["a": 5, "b": 2]).map { ($0.value, $0.connections.sorted()) }
        #expect(deliveries.count == 2)
        #expect(deliveries.contains { $0.0 == 5 && $0.1 == [2, 3] }, "one shared value for both /a subscribers")
        hub.add(4, path: nil, seq: 3, value: ["a": 5, "b": 2])
        #expect(hub.contains(4))
        let again = hub.publish(seq: 3, model: ["a": 5, "b": 2])
        #expect(again.isEmpty, "a subscription already at this seq gets nothing")
        hub.remove(4)
        #expect(!hub.contains(4) && hub.count == 3)
        hub.remove(4)
        #expect(hub.count == 3, "removing twice is harmless")
    }

    @Test("the counter app: increments, refuses to go below 0 with a beep effect, validates events, never wraps")
    func counter() throws {
        let app = CounterApp.make()
        let next = try app.update(0, ["type": "decrement"])
        #expect(next.model == nil)
        #expect(next.effects == [["type": "beep"]])
        #expect(
            app.effectFallbacks["beep"]?(["type": "beep"])["type"] == "mobiusd.log", "without the plugin: a log line")
        #expect(try app.update(2, ["type": "increment"]).model == 3)
        #expect(try app.update(2, ["type": "decrement"]).model == 1)
        #expect(throws: EventRejection.self) { try app.update(.number(JSONNumber(Int64.max)), ["type": "increment"]) }
        #expect(
            try app.update(.number(JSONNumber(Int64.max - 1)), ["type": "increment"]).model
                == .number(JSONNumber(Int64.max)))
        #expect(throws: (any Error).self) { try app.codec.decodeEvent(["type": "jump"]) }
        #expect(throws: (any Error).self) { try app.codec.decodeEvent(5) }
        #expect(try app.codec.decodeEvent(["type": "increment"]) == ["type": "increment"])
    }
}
