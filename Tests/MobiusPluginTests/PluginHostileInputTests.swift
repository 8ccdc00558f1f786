import MobiusJSON
import Testing

@Suite("MobiusPlugin: garbage and oversized lines from the host", .serialized, .timeLimit(.scaled(minutes: 1)))
struct PluginHostileInputTests {
    static let garbage: [(bytes: [UInt8], code: Int64)] = [
        (Array("garbage\n".utf8), -32700),
        (Array("{\"jsonrpc\":\"2.0\",\n".utf8), -32700),
        (Array("[1,2]\n".utf8), -32600),
        (Array("\"text\"\n".utf8), -32600),
        (Array("{\"id\":1,\"method\":\"ping\"}\n".utf8), -32600),
        (Array("{\"jsonrpc\":\"2.0\",\"id\":{},\"method\":\"ping\"}\n".utf8), -32600),
        (Array("{\"jsonrpc\":\"2.0\",\"id\":true,\"method\":\"ping\"}\n".utf8), -32600),
        (Array("{\"jsonrpc\":\"2.0\",\"id\":7,\"method\":5}\n".utf8), -32600),
        ([0xFF, 0xFE, 0x7B, 0x7D, 0x0A], -32700),
        (Array("{\"a\":\"\0\"}\n".utf8), -32700),
        (Array("NaN\n".utf8), -32700),
        (Array(repeating: UInt8(ascii: "["), count: 100_000) + [0x0A], -32700),
        (Array("{\"jsonrpc\":\"2.0\",\"id\":8,\"method\":\"update\",\"params\":[]}\n".utf8), -32602),
    ]

    @Test func garbageGetsJSONRPCErrorsAndThePluginGoesOn() throws {
        let plugin = try PluginDriver()
        try plugin.initialize()
        _ = try plugin.read()
        for (bytes, code) in Self.garbage {
            try plugin.sendRaw(bytes)
            let reply = try plugin.read()
            #expect(
                reply?["error"]?["code"]?.int64Value == code, "\(String(decoding: bytes.prefix(40), as: UTF8.self))")
        }
        // Responses, blank lines and unknown notifications get no answer.
        try plugin.sendRaw(
            Array(
                "{\"jsonrpc\":\"2.0\",\"id\":3,\"result\":{}}\n\n   \r\n{\"jsonrpc\":\"2.0\",\"method\":\"what\"}\n"
                    .utf8))
        try plugin.sendRaw(Array("{\"jsonrpc\":\"2.0\",\"method\":\"cancel\",\"params\":5}\n".utf8))
        #expect(try plugin.call("ping")["result"] == [:])
        let (_, rest, exit) = try plugin.shutdown()
        #expect(rest.isEmpty)
        #expect(exit == .exited(0))
    }

    @Test func linesOverTheLimitInAndOut() throws {
        let plugin = try PluginDriver(extra: ["FIXTURE_MAX_LINE": "4096"])
        try plugin.initialize()
        _ = try plugin.read()
        let huge =
            "{\"jsonrpc\":\"2.0\",\"id\":1,\"method\":\"effect\",\"params\":{\"effect\":\""
            + String(repeating: "x", count: 100_000) + "\"}}\n"
        try plugin.sendRaw(Array(huge.utf8))
        let error = try plugin.read()
        #expect(error?["id"] == .null)
        #expect(error?["error"]?["code"] == -32600)
        #expect(error?["error"]?["message"]?.stringValue?.contains("exceeds the limit of 4096") == true)
        let tooBig = try plugin.call("effect", ["effect": ["type": "big", "size": 5000]])
        #expect(tooBig["error"]?["message"]?.stringValue?.contains("over the host's line limit of 4096") == true)
        #expect(
            try plugin.call("effect", ["effect": ["type": "big", "size": 3000]])["result"]?["events"]?[0]?.stringValue?
                .count == 3000)
        // A final line without a newline, then EOF: answered, then the plugin exits 0.
        try plugin.sendRaw(Array("{\"jsonrpc\":\"2.0\",\"id\":77,\"method\":\"ping\"}".utf8))
        plugin.closeInput()
        #expect(try plugin.read()?["id"] == 77)
        #expect(try plugin.read() == .none)
        #expect(try plugin.waitForExit() == .exited(0))
    }
}
