import MobiusJSON
import Testing

@testable import MobiusDaemon

/// The JSON-RPC lines of docs/protocol.md section 2 as the plugin host writes and reads them.
@Suite("Plugin messages")
struct PluginMessageTests {
    @Test("the hand-written effect request is the same JSON as the generic request")
    func effectRequestMatchesTheGenericForm() throws {
        let effect: JSONValue = ["type": "work", "text": "a \"quoted\" line\n", "n": 12_345_678_901_234]
        var direct: [UInt8] = []
        PluginMessage.appendEffectRequest(id: 9_007_199_254_740_993, effect: effect, to: &direct)
        let generic = PluginMessage.request(
            id: 9_007_199_254_740_993, method: "effect", params: .object(["effect": effect]))
        #expect(direct == generic)
        #expect(direct.last == UInt8(ascii: "\n"))
        // The id is written as JSON reads it back, whatever its size or sign.
        for id: Int64 in [0, 1, 9, 10, 4_294_967_296, -1, -42, .max, .min] {
            var line: [UInt8] = []
            PluginMessage.appendEffectRequest(id: id, effect: effect, to: &line)
            let request = try JSONValue(parsing: Array(line.dropLast()))
            #expect(request["id"]?.int64Value == id, "\(String(decoding: line, as: UTF8.self))")
            let generic = try JSONValue(
                parsing: Array(PluginMessage.request(id: id, method: "update", params: .null).dropLast()))
            #expect(generic["id"]?.int64Value == id)
        }
    }

    /// What the general way makes of a line: a result's id and value, or nil for anything else (a violation, an
    /// error, a notification).
    private static func generalResult(_ line: String) -> (id: Int64, result: JSONValue)? {
        guard let value = try? JSONValue(parsing: line), let message = try? PluginMessage(value),
            case .result(let id, let result) = message
        else { return nil }
        return (id, result)
    }

    @Test(
        "the compact answer's fast path gives what the general way gives",
        arguments: [
            #"{"jsonrpc":"2.0","id":7,"result":{"events":[{"type":"done"}]}}"#,
            #"{"jsonrpc":"2.0","id":0,"result":{}}"#, #"{"jsonrpc":"2.0","id":-0,"result":null}"#,
            #"{"jsonrpc":"2.0","id":-42,"result":[1,2.5,"x"]}"#,
            #"{"jsonrpc":"2.0","id":999999999999999999,"result":"s"}"#,
            #"{"jsonrpc":"2.0","id":3,"result": {"a" : 1}}"#,
        ])
    func compactResultMatchesTheGeneralWay(line: String) throws {
        let fast = try #require(PluginMessage.compactResult(Array(line.utf8)[...]), "taken by the fast path")
        let general = try #require(Self.generalResult(line))
        #expect(fast.id == general.id)
        #expect(fast.result == general.result)
    }

    @Test(
        "every other line leaves the fast path for the general way",
        arguments: [
            // Another order, spacing, members, or an id that is not a plain short integer.
            #"{"id":7,"jsonrpc":"2.0","result":{}}"#, #"{"jsonrpc": "2.0","id":7,"result":{}}"#,
            #"{"jsonrpc":"2.0","id":7,"result":{} }"#, #"{"jsonrpc":"2.0","id":7,"result":{},"error":{}}"#,
            #"{"jsonrpc":"2.0","id":7,"result":{},"result":1}"#, #"{"jsonrpc":"2.0","id":07,"result":{}}"#,
            #"{"jsonrpc":"2.0","id":7.0,"result":{}}"#, #"{"jsonrpc":"2.0","id":1e2,"result":{}}"#,
            #"{"jsonrpc":"2.0","id":-,"result":{}}"#, #"{"jsonrpc":"2.0","id":1234567890123456789,"result":{}}"#,
            #"{"jsonrpc":"2.0","id":"7","result":{}}"#, #"{"jsonrpc":"2.0","id":7,"error":{"message":"no"}}"#,
            // Not JSON, or cut short: the general way reports the violation.
            #"{"jsonrpc":"2.0","id":7,"result":{"a":}}"#, #"{"jsonrpc":"2.0","id":7,"result":{}"#,
            #"{"jsonrpc":"2.0","id":7,"result":}"#, #"{"jsonrpc":"2.0","id":7,"result":{}}x"#,
        ])
    func otherLinesTakeTheGeneralWay(line: String) {
        #expect(PluginMessage.compactResult(Array(line.utf8)[...]) == nil)
    }

    @Test func theFastPathKeepsTheDepthLimitOfTheWholeLine() throws {
        // The whole line may nest 512 levels: the envelope is one, so the result may nest 511.
        func line(resultDepth: Int) -> String {
            #"{"jsonrpc":"2.0","id":1,"result":"# + String(repeating: "[", count: resultDepth)
                + String(repeating: "]", count: resultDepth) + "}"
        }
        for depth in [510, 511, 512, 513] {
            let text = line(resultDepth: depth)
            let fast = PluginMessage.compactResult(Array(text.utf8)[...])
            let general = Self.generalResult(text)
            #expect((fast == nil) == (general == nil), "depth \(depth)")
            #expect(fast?.result == general?.result, "depth \(depth)")
        }
        #expect(Self.generalResult(line(resultDepth: 511)) != nil)
        #expect(Self.generalResult(line(resultDepth: 512)) == nil)
    }

    @Test(
        "lines that are not notifications or responses are violations",
        arguments: [
            #"[1,2]"#, #"{"id":1,"result":{}}"#, #"{"jsonrpc":"2.0","id":1,"method":"ask","params":{}}"#,
            #"{"jsonrpc":"2.0","method":"event","params":[1]}"#, #"{"jsonrpc":"2.0","id":"x","result":{}}"#,
            #"{"jsonrpc":"2.0","id":1}"#, #"{"jsonrpc":"2.0","id":1,"result":{},"error":{}}"#,
        ])
    func violations(line: String) throws {
        let value = try JSONValue(parsing: line)
        #expect(throws: PluginMessage.Violation.self) { try PluginMessage(value) }
    }

    @Test("a batch result gives one outcome per event; the last applied event carries the model")
    func batchResult() throws {
        let result: JSONValue = [
            "model": 7,
            "results": [["effects": [["type": "a"]]], ["error": ["code": 1, "message": "no"]], [:]],
        ]
        let batch = try #require(PluginUpdateDriver.batch(result, count: 3))
        #expect(batch.model == 7)
        #expect(try batch.outcomes[0].get().model == nil)
        #expect(try batch.outcomes[0].get().effects == [["type": "a"]])
        #expect(throws: EventRejection.self) { try batch.outcomes[1].get() }
        #expect(try batch.outcomes[2].get().model == 7)
        #expect(PluginUpdateDriver.batch(result, count: 2) == nil, "a results array of the wrong length")
        #expect(PluginUpdateDriver.batch(["results": [["effects": 3]]], count: 1) == nil, "effects not an array")
        let allRejected = try #require(
            PluginUpdateDriver.batch(["model": 1, "results": [["error": ["message": "x"]]]], count: 1))
        #expect(allRejected.model == nil, "a model with every event rejected is ignored")
    }
}
