import Foundation
import MobiusSystem
import Testing

/// docs/protocol.md 4 and issue #7: SIGHUP re-reads and validates the config. A valid one applies access lists and socket
/// limits to open connections too and reports settings that need a restart; an invalid one keeps the old config and
/// says why; without `--config` nothing is reloaded. Each reload ends with READY=1, which the tests wait for.
@Suite(.serialized, .timeLimit(.scaled(minutes: 3)))
struct SystemdReloadTests {
    static let increment = #"{"type":"increment"}"#

    /// A daemon on `config` with a notify listener, READY=1 already received.
    static func start(
        config: String?, scratch: DaemonScratch
    ) throws -> (DaemonProcess, NotifyListener, configPath: String) {
        let listener = try NotifyListener(scratch: scratch)
        let path = scratch.file("mobiusd.json")
        var arguments = ["--ephemeral"]
        if let config {
            scratch.write("mobiusd.json", config)
            arguments += ["--config", path]
        }
        let daemon = try SystemdNotifyTests.start(listener, scratch: scratch, arguments: arguments)
        try listener.next("READY", "1")
        return (daemon, listener, path)
    }

    /// Rewrites the config, sends SIGHUP and waits for the READY=1 that ends the reload; returns its STATUS.
    static func reload(
        _ daemon: DaemonProcess, _ listener: NotifyListener, scratch: DaemonScratch, config: String
    ) throws -> String {
        scratch.write("mobiusd.json", config)
        daemon.send(signal: 1)
        try listener.next("RELOADING", "1")
        return try listener.next("READY", "1")["STATUS"] ?? ""
    }

    @Test("tightened write access applies to a connection already open; loosening it again too")
    func writeAccessOnOpenConnection() throws {
        let scratch = DaemonScratch()
        let open = #"{"update":{"builtin":"counter"},"access":{"write":["root"]}}"#
        let (daemon, listener, _) = try Self.start(config: open, scratch: scratch)
        let client = try daemon.connect()
        #expect(try client.request(Self.increment).seq == 1)
        let closed = #"{"update":{"builtin":"counter"},"access":{"write":["nobody"]}}"#
        let status = try Self.reload(daemon, listener, scratch: scratch, config: closed)
        #expect(status == "reloaded", "\(status)")
        let denied = try client.request(Self.increment)
        #expect(denied.errorCode == "PermissionDenied", "\(denied)")
        #expect(try client.request("model").model == 1, "reading is still allowed")
        _ = try Self.reload(daemon, listener, scratch: scratch, config: open)
        #expect(try client.request(Self.increment).seq == 2)
        #expect(try daemon.terminate() == .exited(0))
    }

    @Test("withdrawn read access disconnects a subscriber")
    func readAccessEndsStreams() throws {
        let scratch = DaemonScratch()
        let (daemon, listener, _) = try Self.start(config: #"{"update":{"builtin":"counter"}}"#, scratch: scratch)
        let subscriber = try daemon.connect()
        #expect(try subscriber.request("subscribe").ok == true)
        let config = #"{"update":{"builtin":"counter"},"access":{"read":["nobody"],"write":["root"]}}"#
        _ = try Self.reload(daemon, listener, scratch: scratch, config: config)
        #expect(try subscriber.readUntilEndOfFile().isEmpty, "the stream ends with the connection")
        #expect(try daemon.connect().request(Self.increment).seq == 1, "writing is still allowed to root")
        #expect(try daemon.terminate() == .exited(0))
    }

    @Test("a lowered maxLineBytes applies to a connection already open")
    func lineLimitOnOpenConnection() throws {
        let scratch = DaemonScratch()
        let (daemon, listener, _) = try Self.start(config: #"{"update":{"builtin":"counter"}}"#, scratch: scratch)
        let client = try daemon.connect()
        let long = #"{"type":"increment","pad":""# + String(repeating: "x", count: 200) + #""}"#
        #expect(try client.request(long).seq == 1)
        _ = try Self.reload(
            daemon, listener, scratch: scratch,
            config: #"{"update":{"builtin":"counter"},"socket":{"maxLineBytes":100}}"#)
        #expect(try client.request(long).errorCode == "LineTooLong")
        #expect(try daemon.terminate() == .exited(0))
    }

    @Test(
        "an invalid config is refused with the key named; the old one keeps running",
        arguments: [
            ("{not json", "not valid JSON"),
            (#"{"update":{"builtin":"counter"},"colour":"red"}"#, "colour"),
            (#"{"update":{"builtin":"counter"},"access":{"write":["no-such-user-here"]}}"#, "access.write[0]"),
            (#"{"update":{"builtin":"counter"},"socket":{"maxConnections":-1}}"#, "socket.maxConnections"),
        ])
    func invalidConfigKeepsOld(config: String, named: String) throws {
        let scratch = DaemonScratch()
        let good = #"{"update":{"builtin":"counter"},"access":{"write":["root"]}}"#
        let (daemon, listener, _) = try Self.start(config: good, scratch: scratch)
        let client = try daemon.connect()
        let status = try Self.reload(daemon, listener, scratch: scratch, config: config)
        #expect(status.hasPrefix("reload refused, configuration kept"), "\(status)")
        #expect(status.contains(named), "\(status)")
        #expect(try client.request(Self.increment).seq == 1, "the old access list still applies")
        #expect(try daemon.terminate() == .exited(0))
        #expect(daemon.standardError.contains("reload refused"), "\(daemon.standardError)")
    }

    /// A status update that traffic queued just before the reload does not replace the refusal, and later status
    /// lines keep it until the next reload.
    @Test func aRefusedReloadsStatusStays() throws {
        let scratch = DaemonScratch()
        let good = #"{"update":{"builtin":"counter"}}"#
        let (daemon, listener, _) = try Self.start(config: good, scratch: scratch)
        let client = try daemon.connect()
        // Two changes within a second: the second arms the timer that sends the status a second later.
        #expect(try client.request(Self.increment).seq == 1)
        try listener.next(timeout: .seconds(5), "a traffic status") { $0["STATUS"]?.contains("seq 1") == true }
        #expect(try client.request(Self.increment).seq == 2)
        let refused = try Self.reload(daemon, listener, scratch: scratch, config: "{not json")
        #expect(refused.hasPrefix("reload refused"), "\(refused)")
        Thread.sleep(forTimeInterval: 1.5)
        let later = try listener.drain().compactMap { $0["STATUS"] }
        #expect(later.allSatisfy { $0.contains("reload refused") }, "the refusal stays: \(later)")
        #expect(try client.request(Self.increment).seq == 3)
        let after = try listener.next(timeout: .seconds(5), "a status after more traffic") {
            $0["STATUS"]?.contains("seq 3") == true
        }
        #expect(after["STATUS"]?.contains("reload refused") == true, "still there after a real change: \(after)")
        let applied = try Self.reload(daemon, listener, scratch: scratch, config: good)
        #expect(applied.hasPrefix("reloaded"), "\(applied)")
        #expect(try daemon.terminate() == .exited(0))
    }

    @Test("a changed update is reported as needing a restart and left as it is; --socket still wins over socket.path")
    func restartOnlySettings() throws {
        let scratch = DaemonScratch()
        let (daemon, listener, _) = try Self.start(config: #"{"update":{"builtin":"counter"}}"#, scratch: scratch)
        let moved = scratch.file("moved.sock")
        let config = #"{"update":{"builtin":"store"},"socket":{"path":"\#(moved)"}}"#
        let status = try Self.reload(daemon, listener, scratch: scratch, config: config)
        #expect(status == "reloaded; needs a restart for update", "--socket overrides socket.path: \(status)")
        #expect(!FileSystem.exists(moved))
        #expect(try daemon.connect().request(Self.increment).seq == 1, "still the counter")
        #expect(try daemon.terminate() == .exited(0))
        #expect(daemon.standardError.contains("update changed; it takes effect at the next restart"))
    }

    @Test("without --config a SIGHUP reloads nothing, says so, and still answers RELOADING=1 and READY=1")
    func nothingToReload() throws {
        let scratch = DaemonScratch()
        let (daemon, listener, _) = try Self.start(config: nil, scratch: scratch)
        daemon.send(signal: 1)
        try listener.next("RELOADING", "1")
        #expect(try listener.next("READY", "1")["STATUS"] == "reloaded: nothing to reload (no --config)")
        #expect(try daemon.terminate() == .exited(0))
        #expect(daemon.standardError.contains("no --config, nothing to reload"))
    }

    @Test("a flood of SIGHUPs is folded into few reloads; each RELOADING=1 is answered by READY=1")
    func sighupFlood() throws {
        let scratch = DaemonScratch()
        let (daemon, listener, _) = try Self.start(config: #"{"update":{"builtin":"counter"}}"#, scratch: scratch)
        for _ in 0..<30 { daemon.send(signal: 1) }
        #expect(try daemon.connect().request(Self.increment).seq == 1, "serving through the flood")
        try listener.next("READY", "1")
        #expect(try daemon.terminate() == .exited(0))
        try listener.next("STOPPING", "1")
        // After the start's READY=1: RELOADING=1 and READY=1 alternate (a stop may cut off the last reload).
        let marks = listener.received.dropFirst().compactMap {
            $0["RELOADING"] != nil ? "R" : $0["READY"] != nil ? "Y" : nil
        }
        let text = marks.joined()
        let pairs = text.count / 2
        let alternating =
            text.hasPrefix("RY") && text == String(repeating: "RY", count: pairs) + (text.count % 2 == 1 ? "R" : "")
        #expect(alternating, "\(text)")
        #expect(marks.filter { $0 == "R" }.count <= 30, "\(text)")
    }

    @Test("a config path that blocks (a FIFO) holds up only reloads: clients and access decisions go on")
    func blockingConfigPath() throws {
        let scratch = DaemonScratch()
        // Reading needs group nogroup, which the test (root) is not in: each connection is decided while the reload waits.
        let config = #"{"update":{"builtin":"counter"},"access":{"read":["@nogroup"],"write":["root"]}}"#
        let (daemon, listener, path) = try Self.start(config: config, scratch: scratch)
        try FileSystem.remove(path)
        #expect(try DaemonToolRun.run("/usr/bin/mkfifo", [path]).exit == .exited(0))
        daemon.send(signal: 1)
        try listener.next("RELOADING", "1")
        let client = try daemon.connect()
        #expect(try client.request(Self.increment).seq == 1)
        #expect(try client.request("model").errorCode == "PermissionDenied", "decided by the access lists")
        #expect(try daemon.terminate() == .exited(0))
    }
}
