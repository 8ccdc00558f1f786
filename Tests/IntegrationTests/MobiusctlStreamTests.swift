import Glibc
import MobiusJSON
import Testing

/// `watch` and `monitor`: streams that end when the daemon stops or on Ctrl-C.
@Suite(.serialized, .timeLimit(.scaled(minutes: 2)))
struct MobiusctlStreamTests {
    private func json(_ line: String) throws -> JSONValue {
        try JSONValue(parsing: line)
    }

    @Test func watchSeesEventsFromAnotherClientAndEndsWhenTheDaemonStops() throws {
        let sandbox = CtlSandbox()
        try sandbox.startDaemon()
        let watch = try sandbox.spawnCtl(["watch", "--socket", sandbox.socketPath])
        try watch.waitForOutput("\"ok\":true")
        for _ in 0..<3 {
            let send = try sandbox.ctlAtSocket("send", #"{"type":"increment"}"#)
            #expect(send.exit == .exited(0), "\(send)")
        }
        try watch.waitForOutput(#"{"seq":3,"model":3}"#)
        #expect(try sandbox.stopDaemon() == .exited(0))
        #expect(try watch.wait() == .exited(0), "\(watch.stderr)")
        let lines = watch.stdout.split(separator: "\n").map(String.init)
        let first = try json(lines[0])
        #expect(first["ok"] == true)
        #expect(first["seq"] == 0)
        #expect(first["model"] == 0)
        #expect(first["epoch"]?.stringValue != nil)
        // Latest-wins may skip models, but the seqs rise and each item carries the model of its seq.
        let items = try lines.dropFirst().map(json)
        let seqs = items.compactMap { $0["seq"]?.int64Value }
        #expect(seqs == seqs.sorted() && Set(seqs).count == seqs.count, "\(watch.stdout)")
        for item in items { #expect(item["model"]?.int64Value == item["seq"]?.int64Value) }
        #expect(items.last == ["seq": 3, "model": 3])
        #expect(watch.stderr.isEmpty)
    }

    @Test func watchInHumanFormWithAPath() throws {
        let sandbox = CtlSandbox()
        try sandbox.startDaemon()
        let whole = try sandbox.spawnCtl(["--human", "watch", "--socket", sandbox.socketPath])
        let path = try sandbox.spawnCtl(["--human", "watch", "--path", "/missing", "--socket", sandbox.socketPath])
        try whole.waitForOutput("seq 0: 0\n")
        try path.waitForOutput("seq 0: null\n")
        _ = try sandbox.ctlAtSocket("send", #"{"type":"increment"}"#)
        try whole.waitForOutput("seq 1: 1\n")
        try sandbox.stopDaemon()
        #expect(try whole.wait() == .exited(0))
        #expect(try path.wait() == .exited(0))
        #expect(whole.stdout == "seq 0: 0\nseq 1: 1\n")
        // The value at the path never changed, so nothing follows the first reply.
        #expect(path.stdout == "seq 0: null\n")
    }

    @Test(arguments: [["watch"], ["monitor"], ["--human", "watch"]])
    func ctrlCEndsAStreamQuietlyWithExitZero(arguments: [String]) throws {
        let sandbox = CtlSandbox()
        try sandbox.startDaemon()
        let stream = try sandbox.spawnCtl(["--socket", sandbox.socketPath] + arguments)
        try stream.waitForOutput(arguments.contains("--human") ? "seq 0: 0" : "\"ok\":true")
        stream.send(SIGINT)
        #expect(try stream.wait() == .exited(0))
        #expect(stream.stderr.isEmpty, "\(stream.stderr)")
        // The daemon is unaffected and sees the subscriber gone.
        let status = try sandbox.ctlAtSocket("status")
        #expect(status.exit == .exited(0))
    }

    @Test func monitorShowsTheEventTrace() throws {
        let sandbox = CtlSandbox()
        try sandbox.startDaemon()
        let monitor = try sandbox.spawnCtl(["monitor", "--socket", sandbox.socketPath])
        let human = try sandbox.spawnCtl(["--human", "monitor", "--socket", sandbox.socketPath])
        try monitor.waitForOutput("\"ok\":true")
        try human.waitForOutput("monitoring from seq 0", onStderr: true)
        let send = try sandbox.ctlAtSocket("send", #"{"type":"increment"}"#)
        #expect(send.exit == .exited(0), "\(send)")
        try monitor.waitForOutput(#"{"trace":"event","seq":1,"event":{"type":"increment"}}"#)
        try human.waitForOutput(#"event  seq 1  {"type":"increment"}"#)
        monitor.send(SIGINT)
        human.send(SIGINT)
        #expect(try monitor.wait() == .exited(0))
        #expect(try human.wait() == .exited(0))
        let lines = monitor.stdout.split(separator: "\n").map(String.init)
        #expect(try json(lines[0]) == ["ok": true, "seq": 0])
        for line in lines.dropFirst() { #expect(try json(line)["trace"]?.stringValue != nil, "\(line)") }
        #expect(human.stderr == "monitoring from seq 0; Ctrl-C to stop\n")
    }

    /// docs/protocol.md 1.2: `monitor` streams model traces too, whether or not anyone is subscribed.
    @Test func monitorShowsModelTracesWithoutSubscribers() throws {
        let sandbox = CtlSandbox()
        try sandbox.startDaemon()
        let monitor = try sandbox.spawnCtl(["monitor", "--socket", sandbox.socketPath])
        try monitor.waitForOutput("\"ok\":true")
        _ = try sandbox.ctlAtSocket("send", #"{"type":"increment"}"#)
        try monitor.waitForOutput(#""trace":"event""#)
        _ = try sandbox.ctlAtSocket("ping")  // the trace of seq 1's pass has been written by now
        try monitor.waitForOutput(#"{"trace":"model","seq":1,"model":1}"#, timeout: .seconds(5))
        monitor.send(SIGINT)
        #expect(try monitor.wait() == .exited(0))
    }

    @Test func monitorEndsWithExitZeroWhenTheDaemonStops() throws {
        let sandbox = CtlSandbox()
        try sandbox.startDaemon()
        let monitor = try sandbox.spawnCtl(["monitor", "--socket", sandbox.socketPath])
        try monitor.waitForOutput("\"ok\":true")
        try sandbox.stopDaemon()
        #expect(try monitor.wait() == .exited(0))
    }
}
