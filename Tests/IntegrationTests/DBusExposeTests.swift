import Foundation
import MobiusJSON
import MobiusSystem
import Testing

/// The model as a D-Bus service (config `expose`, docs/dbus.md "The model on D-Bus"), against a real private
/// dbus-daemon, driven with the tools a user would try: `busctl introspect`, `busctl get-property`, `busctl call …
/// Send`, `gdbus call`, `gdbus monitor`.
@Suite("D-Bus expose", .serialized, .timeLimit(.scaled(minutes: 3)))
struct DBusExposeTests {
    @Test("--check refuses a malformed expose, naming the key")
    func check() throws {
        let scratch = DaemonScratch()
        let config = scratch.write(
            "bad.json",
            #"{"update":{"builtin":"store"},"expose":{"bus":"session","name":"org.a.B","path":"/b","#
                + #""properties":{"Locked":{"path":"/locked","type":"ab"}}}}"#)
        let run = try DaemonToolRun.mobiusd(["--check", "--config", config])
        #expect(run.exit == .exited(1), "\(run.stdout)\(run.stderr)")
        #expect(
            run.stderr.contains(#"expose.properties.Locked.type: "ab": must be one D-Bus basic type"#), "\(run.stderr)")
    }

    @Test("busctl introspect shows org.mobiusd.App1 with the model's typed values; tree, get-property and Ping work")
    func introspect() throws {
        let app = try ExposedApp(bus: try PrivateBus())
        try app.waitUntilServed()
        let introspect = try app.busctl("introspect", ExposedApp.name, ExposedApp.path)
        #expect(introspect.exit == .exited(0), "\(introspect.stderr)")
        let rows = introspect.stdoutLines.map {
            $0.split(separator: " ", omittingEmptySubsequences: true).joined(separator: " ")
        }
        for row in [
            ".Send method s t -", ".Get method s s -", ".Locked property b true emits-change",
            ".Count property u 3 emits-change", #".Name property s "front" emits-change"#,
            ".Seq property t 0 emits-change",
            #".Model property s "{\"locked\":true,\"count\":3,\"name\":\"front\"}" emits-invalidation"#,
            ".PropertiesChanged signal sa{sv}as - -",
        ] {
            #expect(rows.contains(row), "no \(row) in:\n\(introspect.stdout)")
        }
        #expect(rows.contains { $0.hasPrefix(".Epoch property s \"") && $0.hasSuffix(" const") })
        let tree = try app.busctl("tree", ExposedApp.name)
        #expect(tree.stdout.contains("/org/mobiusd/app/Door"), "\(tree.stdout)\(tree.stderr)")
        #expect(
            try app.busctl("get-property", ExposedApp.name, ExposedApp.path, "org.mobiusd.App1", "Locked").stdout
                == "b true\n")
        let ping = try app.busctl("call", ExposedApp.name, ExposedApp.path, "org.freedesktop.DBus.Peer", "Ping")
        #expect(ping.exit == .exited(0), "\(ping.stderr)")
        #expect(try app.daemon.terminate() == .exited(0))
        #expect(!(try app.busctl("list", "--no-legend").stdout.contains(ExposedApp.name)), "the name left with it")
    }

    @Test("Send is acked with its seq after the commit; a restart keeps it; gdbus monitor sees one PropertiesChanged")
    func send() throws {
        let app = try ExposedApp(bus: try PrivateBus())
        try app.waitUntilServed()
        let monitor = try app.monitor("monitor")
        let sent = try app.send(#"{"type":"set","path":"/locked","value":false}"#)
        #expect(sent.stdout == "t 1\n", "\(sent.stdout)\(sent.stderr)")
        let read = try app.gdbusCall("org.mobiusd.App1.Get", "/locked")
        #expect(read.stdout == "('false',)\n", "Get after the reply sees the new model: \(read.stdout)\(read.stderr)")
        let model = try app.daemon.connect().request("model")
        #expect(model.seq == 1 && model.model?["locked"] == false, "the socket sees it too: \(model)")
        try eventually("the signal") { app.scratch.read(monitor).contains("PropertiesChanged") }
        Thread.sleep(forTimeInterval: 0.3)
        let signals = app.scratch.read(monitor).split(separator: "\n").filter { $0.contains("PropertiesChanged") }
        #expect(signals.count == 1, "\(signals)")
        #expect(
            signals.first?.hasSuffix(
                "PropertiesChanged ('org.mobiusd.App1', {'Seq': <uint64 1>, 'Locked': <false>}, ['Model'])") == true,
            "\(signals)")
        // Parsed on the bus thread with the socket's nesting limit.
        let deep = String(repeating: "[", count: 600) + String(repeating: "]", count: 600)
        let tooDeep = try app.busctl("call", ExposedApp.name, ExposedApp.path, "org.mobiusd.App1", "Send", "s", deep)
        #expect(tooDeep.stderr.contains("invalid JSON") && tooDeep.stderr.contains("512"), "\(tooDeep.stderr)")
        try app.restartAfterKill()
        try app.waitUntilServed()
        #expect(
            try app.busctl("get-property", ExposedApp.name, ExposedApp.path, "org.mobiusd.App1", "Locked", "Seq")
                .stdout == "b false\nt 1\n")
        #expect(try app.daemon.terminate() == .exited(0))
    }

    @Test("errors carry the socket's codes as org.mobiusd.Error names, and count as the socket's do")
    func errors() throws {
        let app = try ExposedApp(
            bus: try PrivateBus(), extra: #""socket":{"maxLineBytes":256,"maxOutputBytes":4096}"#)
        try app.waitUntilServed()
        func error(_ run: DaemonToolRun) -> String {
            run.stderr.components(separatedBy: "GDBus.Error:").dropFirst().first?.components(separatedBy: ":").first
                ?? "no error: \(run.stdout)\(run.stderr)"
        }
        #expect(error(try app.gdbusCall("org.mobiusd.App1.Send", #"{"type":"#)) == "org.mobiusd.Error.InvalidJSON")
        #expect(error(try app.gdbusCall("org.mobiusd.App1.Send", "")) == "org.mobiusd.Error.InvalidJSON")
        let rejected = try app.gdbusCall("org.mobiusd.App1.Send", #"{"type":"nope"}"#)
        #expect(error(rejected) == "org.mobiusd.Error.InvalidEvent")
        #expect(rejected.stderr.contains("the app rejected the event"), "\(rejected.stderr)")
        let long = #"{"type":"set","path":"/a","value":""# + String(repeating: "x", count: 300) + #""}"#
        #expect(error(try app.gdbusCall("org.mobiusd.App1.Send", long)) == "org.mobiusd.Error.LineTooLong")
        #expect(error(try app.gdbusCall("org.mobiusd.App1.Get", "x")) == "org.mobiusd.Error.InvalidArgument")
        #expect(
            error(try app.gdbusCall("org.freedesktop.DBus.Properties.Set", "org.mobiusd.App1", "Locked", "<false>"))
                == "org.freedesktop.DBus.Error.PropertyReadOnly")
        #expect(
            error(try app.gdbusCall("org.freedesktop.DBus.Properties.Get", "org.mobiusd.App1", "Nope"))
                == "org.freedesktop.DBus.Error.UnknownProperty")
        #expect(
            error(try app.gdbusCall("org.mobiusd.App1.Get", "", path: "/elsewhere"))
                == "org.freedesktop.DBus.Error.UnknownObject")
        let wrongType = try app.busctl("call", ExposedApp.name, ExposedApp.path, "org.mobiusd.App1", "Send", "u", "5")
        #expect(wrongType.exit != .exited(0) && wrongType.stderr.contains("Send takes (s)"), "\(wrongType.stderr)")
        let status = try app.daemon.connect().request("status")
        #expect(status["events"]?["rejected"] == 4 && status["events"]?["accepted"] == 0, "\(status)")
        #expect(status["expose"]?["sends"] == 4 && status["expose"]?["inFlight"] == 0, "\(status)")

        // A model whose text is over the reply limit (maxOutputBytes here): Model refuses, parts of it still read.
        let client = try app.daemon.connect()
        #expect(try client.request(#"{"type":"set","path":"/big","value":{}}"#).isAck)
        let filler = String(repeating: "z", count: 200)
        for index in 0..<30 {
            #expect(try client.request(#"{"type":"set","path":"/big/k\#(index)","value":"\#(filler)"}"#).isAck)
        }
        #expect(
            error(try app.gdbusCall("org.freedesktop.DBus.Properties.Get", "org.mobiusd.App1", "Model"))
                == "org.freedesktop.DBus.Error.LimitsExceeded")
        let all = try app.gdbusCall("org.freedesktop.DBus.Properties.GetAll", "org.mobiusd.App1")
        #expect(
            all.exit == .exited(0) && !all.stdout.contains("'Model'") && all.stdout.contains("'Seq': <uint64 31>"),
            "GetAll leaves the model out: \(all.stdout)\(all.stderr)")
        #expect(try app.gdbusCall("org.mobiusd.App1.Get", "/name").stdout == "('\"front\"',)\n")
        #expect(try app.daemon.terminate() == .exited(0))
    }

    @Test("a model value that does not fit its type keeps the property's last good value, logged, never a crash")
    func badValues() throws {
        let app = try ExposedApp(bus: try PrivateBus())
        try app.waitUntilServed()
        #expect(try app.send(#"{"type":"set","path":"/count","value":-1}"#).stdout == "t 1\n")
        #expect(try app.send(#"{"type":"set","path":"/locked","value":"no"}"#).stdout == "t 2\n")
        #expect(try app.send(#"{"type":"delete","path":"/name"}"#).stdout == "t 3\n")
        let values = try app.busctl(
            "get-property", ExposedApp.name, ExposedApp.path, "org.mobiusd.App1", "Count", "Locked", "Name", "Seq")
        #expect(values.stdout == "u 3\nb true\ns \"front\"\nt 3\n", "\(values.stdout)\(values.stderr)")
        let log = app.daemon.standardError
        #expect(log.contains("property Count (/count): -1 does not fit uint32"), "\(log)")
        #expect(log.contains("property Locked (/locked): expected true or false"), "\(log)")
        #expect(log.contains("property Name (/name): the model has no value there"), "\(log)")
        #expect(try app.status()["badValues"] == 3)
        #expect(try app.send(#"{"type":"set","path":"/count","value":7}"#).stdout == "t 4\n")
        #expect(
            try app.busctl("get-property", ExposedApp.name, ExposedApp.path, "org.mobiusd.App1", "Count").stdout
                == "u 7\n")
        #expect(app.daemon.isRunning)
        #expect(try app.daemon.terminate() == .exited(0))
    }

    @Test("the bus killed and restarted: the daemon reconnects and owns the name again; status shows each state")
    func busRestart() throws {
        let bus = try PrivateBus()
        let app = try ExposedApp(bus: bus)
        try app.waitUntilServed()
        try bus.kill()
        try eventually("backoff after the loss") { try app.status()["state"] == "backoff" }
        #expect(try app.daemon.connect().request(#"{"type":"set","path":"/count","value":4}"#).isAck)
        try bus.start()
        try eventually("served again") {
            let status = try app.status()
            return status["state"] == "connected" && status["reconnects"] == 1
        }
        #expect(
            try app.busctl("get-property", ExposedApp.name, ExposedApp.path, "org.mobiusd.App1", "Count").stdout
                == "u 4\n")
        #expect(try app.send(#"{"type":"set","path":"/count","value":5}"#).stdout == "t 2\n")
        #expect(app.daemon.standardError.contains("connection lost"))
        #expect(try app.daemon.terminate() == .exited(0))
    }

    @Test("a name another connection owns: the daemon waits in its queue and serves once it is released")
    func queued() throws {
        let bus = try PrivateBus()
        let (owner, _) = try bus.startScript(
            PrivateBus.peerScript, ["own", bus.address, ExposedApp.name], name: "owner")
        let app = try ExposedApp(bus: bus)
        try eventually("queued") { try app.status()["state"] == "queued" }
        #expect(
            try app.busctl("get-property", ExposedApp.name, ExposedApp.path, "org.mobiusd.App1", "Seq").exit
                != .exited(0), "the owner is the other connection")
        bus.stopPeer(owner)
        try app.waitUntilServed()
        #expect(
            try app.busctl("get-property", ExposedApp.name, ExposedApp.path, "org.mobiusd.App1", "Seq").stdout
                == "t 0\n")
        #expect(try app.daemon.terminate() == .exited(0))
    }

    @Test("READY=1 waits until the name is served: a stopped bus holds it back")
    func readiness() throws {
        let bus = try PrivateBus()
        // Stopped, the bus accepts the connection and never answers: the exposure's first attempt waits.
        #expect(try DaemonToolRun.run("kill", ["-STOP", "\(bus.pid)"]).exit == .exited(0))
        let scratch = DaemonScratch()
        let listener = try NotifyListener(scratch: scratch)
        let config = scratch.write(
            "door.json",
            #"{"update":{"builtin":"store"},"expose":{"bus":"\#(bus.address)","name":"\#(ExposedApp.name)","#
                + #""path":"\#(ExposedApp.path)"}}"#)
        let daemon = try SystemdNotifyTests.start(
            listener, scratch: scratch, arguments: ["--ephemeral", "--config", config])
        #expect(throws: DaemonTestError.self, "no READY=1 while the bus does not answer") {
            try listener.next("READY", "1", timeout: .seconds(1))
        }
        #expect(try DaemonToolRun.run("kill", ["-CONT", "\(bus.pid)"]).exit == .exited(0))
        try listener.next("READY", "1")
        let seq = try DaemonToolRun.run(
            "busctl",
            ["--address=\(bus.address)", "get-property", ExposedApp.name, ExposedApp.path, "org.mobiusd.App1", "Seq"])
        #expect(seq.stdout == "t 0\n", "\(seq.stdout)\(seq.stderr)")
        #expect(try daemon.terminate() == .exited(0))
    }

    /// An exposed app whose update plugin's fx effects hang until `effectTimeout`: three of them fill fx's queue,
    /// which holds the edges (the control socket's and the exposure's), so `Send` calls pile up until they time out.
    static func heldEdges(_ bus: PrivateBus, effectTimeout: Int) throws -> (DaemonProcess, DaemonLineClient) {
        let fx = PluginFixtures.behave(
            options: [:], ["maxQueued": 2, "concurrency": 1, "timeout": .number(JSONNumber(effectTimeout))])
        var config = try JSONValue(parsing: Array(PluginFixtures.config(plugins: ["fx": fx]).utf8))
        guard case .object(var members) = config else { throw DaemonTestError("the fixture config is not an object") }
        members["expose"] = [
            "bus": .string(bus.address), "name": .string(ExposedApp.name), "path": .string(ExposedApp.path),
        ]
        config = .object(members)
        let daemon = try DaemonProcess.start(config: String(decoding: config.encoded(), as: UTF8.self))
        let client = try daemon.connect()
        try eventually("served") { try client.request("status")["expose"]?["state"] == "connected" }
        let hang = PluginFixtures.emit(["type": "job", "do": "hang"])
        try client.send(lines: [hang, hang, hang])
        for seq in 1...3 { #expect(try client.readReply(timeout: .seconds(10)).seq == Int64(seq)) }
        return (daemon, client)
    }

    /// The JSON line `send-many` prints once every call is answered, from the peer started as `name`.
    static func sendManySummary(_ bus: PrivateBus, name: String = "sender") throws -> JSONValue {
        try eventually("every call is answered", timeout: .seconds(60)) {
            bus.scratch.read("\(name).out").contains("acks")
        }
        let last = bus.scratch.read("\(name).out").split(separator: "\n").last.map(String.init) ?? ""
        return try JSONValue(parsing: Array(last.utf8))
    }

    @Test("SIGTERM: every Send still waiting is answered, applied or ShuttingDown, never left to time out")
    func shutdown() throws {
        let bus = try PrivateBus()
        let (daemon, client) = try Self.heldEdges(bus, effectTimeout: 60)
        let (sender, _) = try bus.startScript(
            PrivateBus.peerScript,
            ["send-many", bus.address, ExposedApp.name, ExposedApp.path, "10", #"{"type":"add"}"#],
            name: "sender")
        try eventually("the calls wait") { try client.request("status")["expose"]?["inFlight"] == 10 }
        #expect(try daemon.terminate(timeout: .seconds(60)) == .exited(0))
        let summary = try Self.sendManySummary(bus)
        // Applied when fx's shutdown lets the edges go, or refused as the daemon stops; answered either way.
        let errors = summary["errors"]?.objectValue?.members.map { ($0.key, $0.value.int64Value ?? 0) } ?? []
        #expect((summary["acks"]?.arrayValue?.count ?? 0) + Int(errors.map(\.1).reduce(0, +)) == 10, "\(summary)")
        #expect(errors.allSatisfy { $0.0.hasPrefix("org.mobiusd.Error.") }, "none left to time out: \(summary)")
        bus.stopPeer(sender)
    }

    @Test("after SIGTERM, while the daemon flushes a slow reader, a new Send gets ShuttingDown")
    func sendWhileStopping() throws {
        let app = try ExposedApp(bus: try PrivateBus())
        try app.waitUntilServed()
        let client = try app.daemon.connect()
        let blob = String(repeating: "b", count: 100_000)
        #expect(try client.request(#"{"type":"set","path":"/blob","value":"\#(blob)"}"#).isAck)
        // A reader that does not read keeps the daemon flushing for up to 5 s after SIGTERM.
        let slow = try app.daemon.connect()
        try slow.send(lines: Array(repeating: "model", count: 100))
        // Until the daemon has read them and the replies fill the socket (a SIGTERM before would answer them
        // ShuttingDown at once).
        try eventually("the reader's replies pile up") {
            try client.request("status")["connections"] == 2 && slow.poll(timeout: .milliseconds(1)) != 0
        }
        Thread.sleep(forTimeInterval: 0.3)
        app.daemon.send(signal: 15)
        var last = ""
        try eventually("new calls are refused") {
            let sent = try app.gdbusCall("org.mobiusd.App1.Send", #"{"type":"set","path":"/n","value":1}"#)
            last = sent.stderr
            return sent.stderr.contains("org.mobiusd.Error.ShuttingDown")
        }
        #expect(last.contains("the daemon is shutting down"))
        #expect(try app.daemon.waitForExit(timeout: .seconds(20)) == .exited(0))
    }

    @Test("a flood of Send calls pushes back: at most 1024 wait for the loop, the rest in the bus; all are answered")
    func flood() throws {
        let bus = try PrivateBus()
        let (daemon, client) = try Self.heldEdges(bus, effectTimeout: 4)
        let calls = 5000
        let (sender, _) = try bus.startScript(
            PrivateBus.peerScript,
            ["send-many", bus.address, ExposedApp.name, ExposedApp.path, "\(calls)", #"{"type":"add"}"#],
            name: "sender")
        try eventually("the calls reach the bound") { try client.request("status")["expose"]?["inFlight"] == 1024 }
        for _ in 0..<5 {
            let status = try client.request("status")
            #expect(status["expose"]?["inFlight"]?.int64Value ?? 0 <= 1024, "\(status)")
            #expect(status["queues"]?["client"]?.int64Value ?? 0 <= 1024, "\(status)")
            #expect(status["events"]?["accepted"] == 3, "nothing passes while the edges are held: \(status)")
            Thread.sleep(forTimeInterval: 0.1)
        }
        let summary = try Self.sendManySummary(bus)
        let acks = summary["acks"]?.arrayValue?.compactMap(\.int64Value) ?? []
        #expect(summary["errors"] == [:], "\(summary["errors"] ?? .null)")
        #expect(acks.count == calls && Set(acks) == Set(4...Int64(calls + 3)), "\(acks.count) acks")
        #expect(acks == acks.sorted(), "answered in the order sent")
        #expect(try client.request("model").model?["total"] == JSONValue.number(JSONNumber(calls)))
        bus.stopPeer(sender)
        #expect(try daemon.terminate() == .exited(0))
    }

    @Test("a bus that stops reading gets no pile of signals: at most 16 MiB wait, then one with the newest values")
    func stoppedBus() throws {
        let bus = try PrivateBus()
        let app = try ExposedApp(bus: bus, properties: #"{"Blob":{"path":"/blob","type":"s"}}"#)
        try app.waitUntilServed()
        #expect(try DaemonToolRun.run("kill", ["-STOP", "\(bus.pid)"]).exit == .exited(0))
        let client = try app.daemon.connect()
        let events = 400
        for index in 0..<events {
            let blob = String(repeating: Character(UnicodeScalar(UInt8(97 + index % 26))), count: 60_000)
            let event = #"{"type":"set","path":"/blob","value":"\#(blob)"}"#
            #expect(try client.request(event).isAck)
        }
        let held = try client.request("status")["expose"]?["signals"]?.int64Value ?? -1
        // 16 MiB of 60 KB signals is 279; the socket buffers take a few more.
        #expect(held > 0 && held < 320, "signals while the bus does not read: \(held)")
        #expect(try app.daemon.residentBytes() < 200 << 20)
        #expect(try DaemonToolRun.run("kill", ["-CONT", "\(bus.pid)"]).exit == .exited(0))
        try eventually("one more signal, with the newest value") {
            try client.request("status")["expose"]?["signals"]?.int64Value ?? 0 > held
        }
        let last = Character(UnicodeScalar(UInt8(97 + (events - 1) % 26)))
        let blob = try app.gdbusCall("org.mobiusd.App1.Get", "/blob")
        #expect(blob.stdout.hasPrefix("('\"\(last)\(last)"), "\(blob.stdout.prefix(40))")
        #expect(try app.daemon.terminate() == .exited(0))
    }

    @Test("reload: a changed expose needs a restart; the running one keeps serving")
    func reload() throws {
        let app = try ExposedApp(bus: try PrivateBus())
        try app.waitUntilServed()
        let config = app.scratch.read("door.json").replacingOccurrences(of: "\"Count\"", with: "\"Total\"")
        app.scratch.write("door.json", config)
        let reply = try app.daemon.connect().request("reload")
        #expect(reply.ok == true && reply["needRestart"]?.arrayValue?.contains("expose") == true, "\(reply)")
        #expect(
            try app.busctl("get-property", ExposedApp.name, ExposedApp.path, "org.mobiusd.App1", "Count").stdout
                == "u 3\n")
        #expect(try app.daemon.terminate() == .exited(0))
    }
}
