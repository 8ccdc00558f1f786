import Foundation
import Glibc
import MobiusJSON
import MobiusTestSupport
import Testing

/// The documented client path: socat, exactly as the README and the start-up banner show it.
@Suite(.serialized, .timeLimit(.scaled(minutes: 3)))
struct DaemonSocatTests {
    /// Fails (does not skip) when socat is missing: the README promises it works.
    static func requireSocat() throws {
        guard DaemonSpawn.which("socat") != nil else {
            throw DaemonTestError("socat is not installed: run `make deps` (the README's client path needs it)")
        }
    }

    @Test func readmeEchoPipedIntoSocatGetsAnAck() throws {
        try Self.requireSocat()
        let daemon = try DaemonProcess.start()
        let command = #"echo '{"type":"increment"}' | socat - UNIX-CONNECT:$SOCK"#
        for expected in 1...3 {
            let run = try DaemonToolRun.run("/bin/sh", ["-c", command], environment: ["SOCK": daemon.socketPath])
            #expect(run.exit == .exited(0), "\(run.exit): \(run.stderr)")
            #expect(run.stdout == "{\"ok\":true,\"seq\":\(expected)}\n", "\(run.stdout)")
        }
        #expect(try daemon.connect().request("model").model == 3)
    }

    @Test func bannerSendLineWorksWhenPasted() throws {
        try Self.requireSocat()
        let daemon = try DaemonProcess.start()
        var sendLine: String?
        try DaemonTraffic.eventually("the banner shows a send line") {
            sendLine = daemon.standardOutput.split(separator: "\n").first { $0.contains("socat") }
                .map { String($0) }
            return sendLine != nil
        }
        let command = (sendLine ?? "").replacingOccurrences(of: "send:", with: "")
            .trimmingCharacters(in: .whitespaces)
        #expect(command.contains(daemon.socketPath), "\(command)")
        let run = try DaemonToolRun.run("/bin/sh", ["-c", command])
        #expect(run.exit == .exited(0), "\(command): \(run.stderr)")
        #expect(run.stdout == "{\"ok\":true,\"seq\":1}\n", "\(command) -> \(run.stdout)")
    }

    @Test func socatSessionWithCommandsAndErrors() throws {
        try Self.requireSocat()
        let daemon = try DaemonProcess.start()
        let input = "hello\n{\"type\":\"increment\"}\nnope\nmodel\n"
        // socat waits 0.5 s for replies after its input ends (`-t`): a sanitized daemon gets that times the scale.
        let wait = Sanitizer.current == nil ? [] : ["-t", "\(0.5 * Double(TestTime.scale))"]
        let run = try DaemonToolRun.run(
            "socat", wait + ["-", "UNIX-CONNECT:\(daemon.socketPath)"], stdin: Array(input.utf8))
        #expect(run.exit == .exited(0), "\(run.stderr)")
        let replies = try run.stdoutLines.map { try DaemonReply(line: $0) }
        #expect(replies.count == 4, "\(run.stdout)")
        guard replies.count == 4 else { return }
        #expect(replies[0]["daemon"] == "mobiusd")
        #expect(replies[1].line == #"{"ok":true,"seq":1}"#)
        #expect(replies[2].errorCode == "UnknownCommand" && replies[2].lineNumber == 3)
        #expect(replies[3].line == #"{"ok":true,"seq":1,"model":1}"#)
    }

    @Test func socatWatcherAsDesignDocumentsIt() throws {
        try Self.requireSocat()
        let daemon = try DaemonProcess.start()
        // socat half-closes on stdin EOF; the daemon treats that as "no more requests" and keeps streaming
        // (`-t 30`: socat itself would give up 30 s later; the test ends it once it has seen the update).
        let scratch = DaemonScratch()
        let pid = try DaemonSpawn.spawn(
            "socat", ["-t", "30", "-", "UNIX-CONNECT:\(daemon.socketPath)"],
            stdinPath: scratch.write("in", "subscribe\n"), stdoutPath: scratch.file("out"),
            stderrPath: scratch.file("err"))
        defer {
            kill(pid, SIGKILL)
            _ = DaemonSpawn.wait(pid, timeout: .seconds(5))
        }
        try DaemonTraffic.eventually("socat got the subscribe reply") { scratch.read("out").contains("epoch") }
        let writer = try daemon.connect()
        _ = try writer.request(#"{"type":"increment"}"#)
        try DaemonTraffic.eventually("socat got the stream item") {
            scratch.read("out").contains(#"{"seq":1,"model":1}"#)
        }
        #expect(DaemonSpawn.reap(pid) == nil, "socat is still connected")
        let lines = scratch.read("out").split(separator: "\n").map(String.init)
        #expect(lines.first?.hasPrefix(#"{"ok":true,"seq":0,"epoch":"#) == true, "\(lines)")
    }
}
