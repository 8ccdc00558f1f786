import Foundation
import MobiusJSON
import MobiusSystem
import Testing

/// The exposed model (config `expose`) against hostile peers on a real private dbus-daemon: floods from many
/// connections, arguments past the limits, hostile pointers, a caller that never reads its replies.
@Suite("D-Bus expose, hostile peers", .serialized, .timeLimit(.scaled(minutes: 3)))
struct DBusExposeHostileTests {
    @Test("Send floods from eight connections push back: at most 1024 wait; every call answered, each in order")
    func floodFromManyConnections() throws {
        let bus = try PrivateBus()
        let (daemon, client) = try DBusExposeTests.heldEdges(bus, effectTimeout: 4)
        let senders = 8
        let calls = 400
        var children: [ChildProcess] = []
        for index in 0..<senders {
            let (child, _) = try bus.startScript(
                PrivateBus.peerScript,
                ["send-many", bus.address, ExposedApp.name, ExposedApp.path, "\(calls)", #"{"type":"add"}"#],
                name: "sender\(index)")
            children.append(child)
        }
        try eventually("the calls reach the bound") { try client.request("status")["expose"]?["inFlight"] == 1024 }
        for _ in 0..<5 {
            let status = try client.request("status")
            #expect(status["expose"]?["inFlight"]?.int64Value ?? 0 <= 1024, "\(status)")
            #expect(status["events"]?["accepted"] == 3, "nothing passes while the edges are held: \(status)")
            Thread.sleep(forTimeInterval: 0.1)
        }
        var everyAck: [Int64] = []
        for index in 0..<senders {
            let summary = try DBusExposeTests.sendManySummary(bus, name: "sender\(index)")
            let acks = summary["acks"]?.arrayValue?.compactMap(\.int64Value) ?? []
            #expect(summary["errors"] == [:], "sender \(index): \(summary["errors"] ?? .null)")
            #expect(acks.count == calls && acks == acks.sorted(), "sender \(index): \(acks.count) acks, in order")
            everyAck += acks
        }
        #expect(Set(everyAck) == Set(4...Int64(senders * calls + 3)), "\(everyAck.count) acks, each seq once")
        #expect(try client.request("model").model?["total"] == JSONValue.number(JSONNumber(senders * calls)))
        for child in children { bus.stopPeer(child) }
        #expect(try daemon.terminate() == .exited(0))
    }

    @Test("Get with hostile pointers: a clear InvalidArgument, short, or null; the daemon goes on serving")
    func hostilePointers() throws {
        let app = try ExposedApp(bus: try PrivateBus(), extra: #""socket":{"maxLineBytes":65536}"#)
        try app.waitUntilServed()
        func answer(_ pointer: String) throws -> String {
            let run = try app.gdbusCall("org.mobiusd.App1.Get", pointer)
            return run.exit == .exited(0) ? run.stdout : run.stderr
        }
        for (pointer, expected) in [
            ("locked", "a JSON Pointer must be empty or start with '/'"),
            ("/a~2", "'~' must be followed by '0' or '1' at byte 2"),
            ("/name~", "'~' must be followed by '0' or '1'"),
            (String(repeating: "/a", count: 600), "a JSON Pointer may have at most 512 tokens"),
            ("/" + String(repeating: "a", count: 70_000), "the pointer is longer than 65536 bytes"),
        ] {
            let text = try answer(pointer)
            #expect(
                text.contains("org.mobiusd.Error.InvalidArgument") && text.contains(expected), "\(text.prefix(300))")
            #expect(text.utf8.count < 400, "the error quotes at most 64 bytes of the pointer: \(text.utf8.count) bytes")
        }
        for pointer in [
            "/", "/locked/0", "/name/x/y", "/~01", "/count/-", "/" + String(repeating: "b", count: 60_000),
            String(repeating: "/0", count: 511),
        ] {
            #expect(try answer(pointer) == "('null',)\n", "\(pointer.prefix(40)) is absent")
        }
        #expect(try answer("/name") == "('\"front\"',)\n")
        #expect(try app.status()["state"] == "connected")
        #expect(try app.daemon.terminate() == .exited(0))
    }

    @Test("a caller that never reads its replies costs the daemon nothing: others are served, memory stays bounded")
    func callerThatNeverReads() throws {
        let bus = try PrivateBus()
        let app = try ExposedApp(bus: bus)
        try app.waitUntilServed()
        let blob = String(repeating: "q", count: 100_000)
        #expect(try app.daemon.connect().request(#"{"type":"set","path":"/blob","value":"\#(blob)"}"#).isAck)
        let before = try app.daemon.residentBytes()
        // 400 replies of 100 KB: 40 MB that the caller never reads.
        let (stalled, _) = try bus.startScript(
            PrivateBus.peerScript, ["call-no-read", bus.address, ExposedApp.name, ExposedApp.path, "400", ""],
            name: "stalled")
        try eventually("every Get is answered into the bus") { try app.status()["reads"]?.int64Value ?? 0 >= 400 }
        let started = ContinuousClock.now
        #expect(
            try app.busctl("get-property", ExposedApp.name, ExposedApp.path, "org.mobiusd.App1", "Locked").stdout
                == "b true\n")
        #expect(try app.send(#"{"type":"set","path":"/locked","value":false}"#).stdout == "t 2\n")
        #expect(ContinuousClock.now - started < .seconds(5), "another caller waited \(ContinuousClock.now - started)")
        let grown = try app.daemon.residentBytes() - before
        #expect(grown < 32 << 20, "the daemon grew by \(grown) bytes for a caller that reads nothing")
        #expect(try app.status()["state"] == "connected")
        bus.stopPeer(stalled)
        #expect(try app.send(#"{"type":"set","path":"/locked","value":true}"#).stdout == "t 3\n")
        #expect(try app.daemon.terminate() == .exited(0))
    }

    @Test("a 40 MiB Send is LineTooLong; the connection stays and the next Send is applied")
    func hugeSend() throws {
        let bus = try PrivateBus()
        let app = try ExposedApp(bus: bus)
        try app.waitUntilServed()
        let big = try bus.peer("send-big", ExposedApp.name, ExposedApp.path, "\(40 << 20)")
        #expect(big.stdout == "org.mobiusd.Error.LineTooLong\n", "\(big.stdout)\(big.stderr)")
        #expect(try app.status()["reconnects"] == 0)
        #expect(try app.send(#"{"type":"set","path":"/count","value":4}"#).stdout == "t 1\n")
        #expect(try app.daemon.connect().request("status")["events"]?["rejected"] == 1)
        #expect(try app.daemon.terminate() == .exited(0))
    }
}
