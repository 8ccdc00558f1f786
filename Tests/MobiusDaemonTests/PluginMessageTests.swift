import MobiusJSON
import Testing

@testable import MobiusDaemon

/// The JSON-RPC lines of PROTOCOL.md section 2 as the plugin host writes and reads them.
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
