import MobiusJSON
import Testing

/// docs/protocol.md 1.5 (nesting) and the built-in apps' documented rejections: input that once crashed the daemon, grew
/// a model past what can be replayed, or was silently acked as a no-op.
@Suite(.serialized, .timeLimit(.scaled(minutes: 3)))
struct HostileInputTests {
    /// The store with room for a 600 KB line, nothing kept on disk.
    static func startStore(model: String = "{}") throws -> DaemonProcess {
        try DaemonProcess.start(
            config: #"{"update":{"builtin":"store"},"model":\#(model),"socket":{"maxLineBytes":2097152}}"#,
            extraArguments: ["--ephemeral"])
    }

    /// The daemon runs and answers `ping` on a new connection with `seq`.
    static func expectAlive(
        _ daemon: DaemonProcess, seq: Int64, sourceLocation: SourceLocation = #_sourceLocation
    ) throws {
        #expect(daemon.isRunning, "mobiusd died: \(daemon.standardError)", sourceLocation: sourceLocation)
        let ping = try daemon.connect().request("ping")
        #expect(ping.ok == true && ping.seq == seq, "\(ping)", sourceLocation: sourceLocation)
    }

    @Test func pointerOf300000TokensIsInvalidEventNotAStackOverflow() throws {
        let daemon = try Self.startStore()
        let client = try daemon.connect()
        let line = HostileJSON.set(HostileJSON.pointer(tokens: 300_000), "1")
        #expect(line.utf8.count > 600_000)
        let reply = try client.request(line, timeout: .seconds(20))
        #expect(reply.ok == false && reply.errorCode == "InvalidEvent" && reply.lineNumber == 1, "\(reply)")
        let justOver = try client.request(HostileJSON.set(HostileJSON.pointer(tokens: 513), "1"))
        #expect(justOver.errorCode == "InvalidEvent", "a pointer of 513 tokens: \(justOver)")
        let model = try client.request("model")
        #expect(model.model == [:], "the model is unchanged: \(model)")
        try Self.expectAlive(daemon, seq: 0)
    }

    @Test(arguments: ["model", "subscribe"])
    func commandPathOver512TokensIsInvalidArgument(command: String) throws {
        let daemon = try Self.startStore()
        let client = try daemon.connect()
        for tokens in [513, 300_000] {
            let reply = try client.request(
                #"\#(command) {"path":"\#(HostileJSON.pointer(tokens: tokens))"}"#, timeout: .seconds(20))
            #expect(reply.ok == false && reply.errorCode == "InvalidArgument", "\(tokens) tokens: \(reply)")
        }
        try Self.expectAlive(daemon, seq: 0)
    }

    @Test func setThatWouldNestTheModelPast512LevelsIsRejectedAndTheModelKept() throws {
        let daemon = try Self.startStore()
        let client = try daemon.connect()
        let value500 = HostileJSON.nestedArrays(depth: 500)
        // 20 objects on the way plus 500 arrays: deeper than 512, though the event line itself is not.
        let deep = try client.request(HostileJSON.set(HostileJSON.pointer(tokens: 20, token: "d"), value500))
        #expect(deep.ok == false && deep.errorCode == "InvalidEvent", "\(deep)")
        #expect(try client.request("model").model == [:], "the rejected set left the model alone")
        // The same value one level down fits.
        let shallow = try client.request(HostileJSON.set("/shallow", value500))
        #expect(shallow.isAck && shallow.seq == 1, "\(shallow)")

        // Depth built by two sets, each fine on its own: 300 objects, then 300 more inside the innermost one.
        let value300 = HostileJSON.nestedObjects(depth: 300)
        let first = try client.request(HostileJSON.set("/r", value300))
        #expect(first.isAck && first.seq == 2, "\(first)")
        let before = try client.request("model")
        let inner = "/r" + HostileJSON.pointer(tokens: 299, token: "b") + "/c"
        let second = try client.request(HostileJSON.set(inner, value300))
        #expect(second.ok == false && second.errorCode == "InvalidEvent", "\(second)")
        let after = try client.request("model")
        #expect(after.ok == true && after.line == before.line, "the model is unchanged")
        try Self.expectAlive(daemon, seq: 2)
    }

    @Test func storeSetThroughAScalarIsInvalidEvent() throws {
        let daemon = try Self.startStore()
        let client = try daemon.connect()
        let scalar = try client.request(HostileJSON.set("/a", "1"))
        #expect(scalar.isAck && scalar.seq == 1, "\(scalar)")
        let through = try client.request(HostileJSON.set("/a/b", "2"))
        #expect(through.ok == false && through.errorCode == "InvalidEvent" && through.lineNumber == 2, "\(through)")
        #expect(try client.request("model").model == ["a": 1])
        try Self.expectAlive(daemon, seq: 1)
    }

    @Test func counterAtInt64MaxRejectsIncrementInsteadOfWrapping() throws {
        let daemon = try DaemonProcess.start(
            config: #"{"update":{"builtin":"counter"},"model":9223372036854775807}"#, extraArguments: ["--ephemeral"])
        let client = try daemon.connect()
        let reply = try client.request(#"{"type":"increment"}"#)
        #expect(reply.ok == false && reply.errorCode == "InvalidEvent" && reply.lineNumber == 1, "\(reply)")
        let model = try client.request("model")
        #expect(model.model?.int64Value == Int64.max && model.seq == 0, "\(model)")
        // The counter still works in the other direction.
        let down = try client.request(#"{"type":"decrement"}"#)
        #expect(down.isAck && down.seq == 1, "\(down)")
        try Self.expectAlive(daemon, seq: 1)
    }
}
