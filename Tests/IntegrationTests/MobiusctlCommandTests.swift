import Foundation
import MobiusJSON
import Testing

/// The real mobiusctl against a real mobiusd: one request, one reply.
@Suite(.serialized, .timeLimit(.scaled(minutes: 2)))
struct MobiusctlCommandTests {
    private func json(_ line: String) throws -> JSONValue {
        try JSONValue(parsing: line)
    }

    @Test func sendPrintsTheAckAndItsSeq() throws {
        let sandbox = CtlSandbox()
        try sandbox.startDaemon()
        let first = try sandbox.ctlAtSocket("send", #"{"type":"increment"}"#)
        #expect(first.exit == .exited(0), "\(first)")
        #expect(first.stdout == "{\"ok\":true,\"seq\":1}\n")
        #expect(first.stderr.isEmpty)
        let second = try sandbox.ctlAtSocket("--human", "send", "{\n \"type\" : \"increment\"\n}")
        #expect(second.exit == .exited(0), "\(second)")
        #expect(second.stdout == "ok, seq 2\n")
        let model = try sandbox.ctlAtSocket("model")
        #expect(try json(model.lines[0]) == ["ok": true, "seq": 2, "model": 2])
    }

    @Test func sendRefusesInvalidJSONWithoutConnecting() throws {
        let sandbox = CtlSandbox()  // no daemon: the JSON is checked before connecting
        let run = try sandbox.ctlAtSocket("send", #"{"type":"increment""#)
        #expect(run.exit == .exited(2), "\(run)")
        #expect(run.stdout.isEmpty)
        #expect(run.stderr.contains("mobiusctl: send: invalid JSON: unexpected end"), "\(run)")
        #expect(
            run.stderr.contains("usage: mobiusctl [--socket PATH | --app NAME] [--json | --human] send JSON"), "\(run)")
    }

    @Test func sendOfAnEventTheAppRejectsExitsOneWithCodeAndMessage() throws {
        let sandbox = CtlSandbox()
        try sandbox.startDaemon()
        let run = try sandbox.ctlAtSocket("send", #"{"type":"bogus"}"#)
        #expect(run.exit == .exited(1), "\(run)")
        #expect(run.stderr.hasPrefix("mobiusctl: the app rejected the event"), "\(run)")
        #expect(run.stderr.hasSuffix("(InvalidEvent)\n"), "\(run)")
        // JSON mode also passes the error reply through, for scripts.
        #expect(try json(run.lines[0])["error"]?["code"] == "InvalidEvent")
        let human = try sandbox.ctlAtSocket("--human", "send", #"{"type":"bogus"}"#)
        #expect(human.exit == .exited(1))
        #expect(human.stdout.isEmpty)
        #expect(human.stderr.hasSuffix("(InvalidEvent)\n"), "\(human)")
        let status = try sandbox.ctlAtSocket("status")
        #expect(
            try json(status.lines[0])["events"] == ["accepted": 0, "rejected": 2, "rejectedFromOtherSources": 0])
    }

    @Test func modelWholeAndAtAPath() throws {
        let sandbox = CtlSandbox()
        try sandbox.startDaemon()
        for _ in 0..<3 { _ = try sandbox.ctlAtSocket("send", #"{"type":"increment"}"#) }
        let human = try sandbox.ctlAtSocket("model", "--human")
        #expect(human.exit == .exited(0), "\(human)")
        #expect(human.stdout == "seq 3\n3\n")
        // The counter's model is a number, so any member path is absent: null.
        let path = try sandbox.ctlAtSocket("model", "--path", "/count")
        #expect(path.exit == .exited(0), "\(path)")
        #expect(try json(path.lines[0]) == ["ok": true, "seq": 3, "model": nil])
        let whole = try sandbox.ctlAtSocket("model", "--path=")
        #expect(try json(whole.lines[0])["model"] == 3)
    }

    @Test func statusListsTheProtocolFields() throws {
        let sandbox = CtlSandbox()
        try sandbox.startDaemon()
        _ = try sandbox.ctlAtSocket("send", #"{"type":"increment"}"#)
        let run = try sandbox.ctlAtSocket("status")
        #expect(run.exit == .exited(0), "\(run)")
        #expect(run.lines.count == 1)
        let status = try json(run.lines[0])
        #expect(status["ok"] == true)
        #expect(status["app"] == "counter")
        #expect(status["seq"] == 1)
        #expect(status["events"]?["accepted"] == 1)
        for key in ["epoch", "uptime", "connections", "subscribers", "plugins", "dbus", "rssBytes"] {
            #expect(status[key] != nil, "status lacks \(key): \(run.stdout)")
        }
        let human = try sandbox.ctlAtSocket("status", "--human")
        #expect(human.exit == .exited(0), "\(human)")
        let rows = human.lines
        #expect(rows.contains { $0.hasPrefix("app ") && $0.hasSuffix(" counter") }, "\(human)")
        #expect(rows.contains { $0.hasPrefix("events.accepted ") && $0.hasSuffix(" 1") }, "\(human)")
        #expect(rows.contains { $0.hasPrefix("rssBytes ") && $0.hasSuffix(" MiB)") }, "\(human)")
        #expect(!rows.contains { $0.hasPrefix("ok ") })
    }

    @Test func helloAndPing() throws {
        let sandbox = CtlSandbox()
        try sandbox.startDaemon()
        let hello = try sandbox.ctlAtSocket("hello")
        #expect(hello.exit == .exited(0), "\(hello)")
        let value = try json(hello.lines[0])
        #expect(value["protocol"] == 1)
        #expect(value["daemon"] == "mobiusd")
        let ping = try sandbox.ctlAtSocket("ping", "--human")
        #expect(ping.stdout == "ok, seq 0\n", "\(ping)")
    }

    /// Today's daemon keeps no journal and answers `Unavailable`; once it does, the other branch checks the stream.
    @Test func logReportsWhatTheDaemonAnswers() throws {
        let sandbox = CtlSandbox()
        try sandbox.startDaemon()
        _ = try sandbox.ctlAtSocket("send", #"{"type":"increment"}"#)
        let run = try sandbox.ctlAtSocket("log", "--since", "0")
        let reply = try json(run.lines[0])
        if reply["ok"] == false {
            #expect(run.exit == .exited(1), "\(run)")
            let code = reply["error"]?["code"]?.stringValue ?? "?"
            #expect(run.stderr.hasPrefix("mobiusctl: "), "\(run)")
            #expect(run.stderr.hasSuffix("(\(code))\n"), "\(run)")
            #expect(code == "Unavailable")
            let human = try sandbox.ctlAtSocket("log", "--human")
            #expect(human.exit == .exited(1), "\(human)")
            #expect(human.stdout.isEmpty)
            #expect(human.stderr.hasSuffix("(\(code))\n"), "\(human)")
        } else {
            #expect(run.exit == .exited(0), "\(run)")
            #expect(try json(run.lines[1])["event"] == ["type": "increment"])
            #expect(try json(run.lines.last!)["end"] == true)
        }
    }

    @Test func outputIsJSONWhenNotATerminalHumanWithFlagOrOnATerminal() throws {
        let sandbox = CtlSandbox()
        try sandbox.startDaemon()
        #expect(try sandbox.ctlAtSocket("ping").stdout == "{\"ok\":true,\"seq\":0}\n")
        #expect(try sandbox.ctlAtSocket("ping", "--json").stdout == "{\"ok\":true,\"seq\":0}\n")
        #expect(try sandbox.ctlAtSocket("--human", "ping").stdout == "ok, seq 0\n")
        // On a real terminal (a pty from script(1)) the default is human-readable.
        guard FileManager.default.isExecutableFile(atPath: "/usr/bin/script") else { return }
        let command = "\(CtlBinaries.mobiusctl) --socket \(sandbox.socketPath) ping"
        let tty = try CtlChild(
            "/usr/bin/script", ["-qec", command, "/dev/null"], environment: sandbox.environment,
            outputPrefix: sandbox.directory + "/script")
        #expect(try tty.wait() == .exited(0), "\(tty.stdout) \(tty.stderr)")
        #expect(tty.stdout.replacingOccurrences(of: "\r", with: "") == "ok, seq 0\n")
    }
}
