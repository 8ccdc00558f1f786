import Foundation
import MobiusJSON
import MobiusSystem
import MobiusTestSupport
import Testing

@testable import mobiusctl

/// Long replays, made long on purpose with the wedge fixture (an app whose `{"type":"wedge",…}` event blocks its
/// update on a FIFO until the test opens and closes it, whenever the event is applied: live, in recovery, or in a
/// replay of past models): `model {"at":N}` runs beside the loop, bounded, and says how far it has got; a long
/// recovery tells systemd (`STATUS=`, `EXTEND_TIMEOUT_USEC=` while it advances) and the log; `mobiusctl model --at N`
/// shows the replay's progress on a terminal.
@Suite("History: long replays", .serialized, .timeLimit(.scaled(minutes: 3)))
struct HistoryProgressTests {
    /// A wedge fixture's files: the FIFO its update reads and the file it creates first.
    struct Wedge {
        let scratch = DaemonScratch()
        var fifo: String { scratch.file("wedge.fifo") }
        var marker: String { scratch.file("wedged") }
        var state: String { scratch.file("state") }
        var socket: String { scratch.file("x.sock") }
        var event: String { #"{"type":"wedge","marker":"\#(marker)","fifo":"\#(fifo)"}"# }

        init() throws {
            #expect(try DaemonToolRun.run("/usr/bin/mkfifo", [fifo]).exit == .exited(0))
        }

        /// Waits until an update is inside the wedge (its marker exists), then removes the marker.
        func waitUntilWedged() throws {
            try DaemonTraffic.eventually("an update in the wedge") { FileSystem.exists(marker) }
            try FileSystem.remove(marker)
        }

        /// Lets the update in the wedge go on: opening the FIFO for writing waits for its reader, closing it ends
        /// the reader's read.
        func release() throws {
            try FileDescriptor.create(fifo).close()
        }

        func start(name: String = "mobiusd") throws -> DaemonProcess {
            try DaemonProcess(
                scratch: scratch, arguments: ["--socket", socket, "--state-dir", state], socketPath: socket,
                name: name, program: DaemonSpawn.fixture("mobiusd-fixture-wedge"))
        }

        /// Sends a wedge event and lets it through; returns its seq.
        func sendWedge(on client: DaemonLineClient) throws -> Int64? {
            try client.send(event)
            try waitUntilWedged()
            try release()
            return try client.readReply().seq
        }
    }

    static let increment = #"{"type":"increment"}"#

    /// While the history thread replays, stuck in the app's update, other clients are served, `status` shows the
    /// replay, at most four replays run or wait (the next is refused `Overloaded`), a log line reports progress
    /// after a second, and the asking connection's later lines wait for its answer.
    @Test func aLongReplayRunsBesideTheLoopBoundedAndReported() throws {
        let wedge = try Wedge()
        let daemon = try wedge.start()
        let client = try daemon.connect()
        #expect(try wedge.sendWedge(on: client) == 1)
        try DaemonTraffic.sendIncrements(5, on: client, batch: 5)

        let asker = try daemon.connect()
        try asker.send(lines: [#"model {"at":3}"#, "ping"])
        try wedge.waitUntilWedged()
        #expect(try client.request("ping").seq == 6, "the loop serves while the replay is stuck")
        #expect(try client.request(Self.increment).seq == 7)
        let running = try client.request("status")["history"]?["running"]
        #expect(running?["request"] == "model" && running?["seq"] == 3 && running?["from"] == 0, "\(running!)")
        #expect(running?["done"] == 0 && running?["of"] == 3, "\(running!)")

        let waiting = try (0..<3).map { _ in try daemon.connect() }
        for other in waiting { try other.send(#"model {"at":2}"#) }
        try DaemonTraffic.eventually("four replays pending") {
            try client.request("status")["history"]?["pending"] == 4
        }
        let refused = try client.request(#"model {"at":2}"#)
        #expect(refused.errorCode == "Overloaded", "\(refused)")
        #expect(refused.errorMessage?.hasPrefix("4 replays of past models are already running or waiting") == true)
        #expect(try asker.readAvailableLines(timeout: .milliseconds(200)).isEmpty, "its ping waits for its answer")
        try DaemonTraffic.eventually("a progress line after a second") {
            daemon.standardError.contains(
                "model at seq 3: replaying from the start of the history: 0% (0 of 3 events) after 1 s")
        }

        // Each replay applies the wedge event once more: one release each, in the order they were asked.
        try wedge.release()
        let answer = try asker.readReply()
        #expect(answer.seq == 3 && answer.model == 3, "\(answer)")
        #expect(try asker.readReply().seq == 7, "then its ping")
        for other in waiting {
            try wedge.release()
            let reply = try other.readReply(timeout: .seconds(10))
            #expect(reply.seq == 2 && reply.model == 2, "\(reply)")
        }
        #expect(daemon.standardError.contains("model at seq 3: replaying from the start of the history: 3 events in"))
        #expect(try client.request("status")["history"]?["pending"] == 0)
        #expect(try daemon.terminate() == .exited(0))
    }

    /// `mobiusctl model --at N` whose answer is more than a second coming shows how far the replay has got on its
    /// stderr when that is a terminal (`script`), one line rewritten in place and taken away before the model; piped,
    /// stderr stays empty and stdout is the answer alone. The replay stops at the wedge, its 5th event, until released.
    @Test func mobiusctlShowsAReplaysProgressOnATerminalOnly() throws {
        let wedge = try Wedge()
        let daemon = try wedge.start()
        let client = try daemon.connect()
        try DaemonTraffic.sendIncrements(4, on: client, batch: 4)
        #expect(try wedge.sendWedge(on: client) == 5)
        try DaemonTraffic.sendIncrements(6, on: client, batch: 6)
        let environment = ["PATH": SystemProcess.environment("PATH") ?? "/usr/bin:/bin", "HOME": wedge.scratch.path]
        let modelAt = { (seq: Int) in [CtlBinaries.mobiusctl, "--socket", wedge.socket, "model", "--at", "\(seq)"] }

        let piped = try CtlChild(
            CtlBinaries.mobiusctl, Array(modelAt(10).dropFirst()), environment: environment,
            outputPrefix: wedge.scratch.file("piped"))
        try wedge.waitUntilWedged()
        // Past the quiet second and a `status` answer: a terminal would show the line by now.
        try SystemClock.sleep(nanoseconds: 1_500_000_000)
        try wedge.release()
        #expect(try piped.wait() == .exited(0), "\(piped.stderr)")
        #expect(piped.stdout == #"{"ok":true,"seq":10,"model":10}"# + "\n", "\(piped.stdout)")
        #expect(piped.stderr.isEmpty, "no progress on a file: \(piped.stderr.debugDescription)")

        let script = try #require(DaemonSpawn.which("script"))
        let onTerminal = { (seq: Int, name: String) in
            try CtlChild(
                script, ["-qefc", modelAt(seq).map { "'\($0)'" }.joined(separator: " "), wedge.scratch.file(name)],
                environment: environment, outputPrefix: wedge.scratch.file(name))
        }
        let terminal = try onTerminal(10, "terminal")
        try wedge.waitUntilWedged()
        try terminal.waitForOutput("\r\u{1B}[Kreplaying: 40% (4 of 10 events), ")
        try wedge.release()
        #expect(try terminal.wait() == .exited(0), "\(terminal.stdout.debugDescription)")
        let shown = terminal.stdout
        #expect(shown.contains(" events/s"), "\(shown.debugDescription)")
        #expect(
            shown.hasSuffix("\r\u{1B}[Kseq 10\r\n10\r\n"), "the line goes before the model: \(shown.debugDescription)")

        let quick = try onTerminal(3, "quick")
        #expect(try quick.wait() == .exited(0), "\(quick.stdout.debugDescription)")
        #expect(quick.stdout == "seq 3\r\n3\r\n", "an answer within the second shows no line")
        #expect(try daemon.terminate() == .exited(0))
    }

    /// Ctrl-C while the progress line shows takes the line away before mobiusctl ends by SIGINT, so the shell's
    /// prompt does not land after a stale "replaying: …".
    @Test func ctrlCTakesTheProgressLineAway() throws {
        let wedge = try Wedge()
        let daemon = try wedge.start()
        let client = try daemon.connect()
        try DaemonTraffic.sendIncrements(4, on: client, batch: 4)
        #expect(try wedge.sendWedge(on: client) == 5)
        try DaemonTraffic.sendIncrements(6, on: client, batch: 6)
        let environment = ["PATH": SystemProcess.environment("PATH") ?? "/usr/bin:/bin", "HOME": wedge.scratch.path]
        let script = try #require(DaemonSpawn.which("script"))
        let command = [CtlBinaries.mobiusctl, "--socket", wedge.socket, "model", "--at", "10"]
        let terminal = try CtlChild(
            script, ["-qefc", command.map { "'\($0)'" }.joined(separator: " "), wedge.scratch.file("interrupted")],
            environment: environment, outputPrefix: wedge.scratch.file("interrupted"))
        try wedge.waitUntilWedged()
        try terminal.waitForOutput(" events/s")
        let mobiusctl = try #require(Self.descendant(of: terminal.pid, named: "mobiusctl"), "mobiusctl under script")
        #expect(kill(mobiusctl, SIGINT) == 0)
        // script(1) returns 128 + the signal for a child a signal ended.
        #expect(try terminal.wait() == .exited(128 + SIGINT), "\(terminal.stdout.debugDescription)")
        let shown = terminal.stdout
        #expect(shown.hasSuffix(" events/s\r\u{1B}[K"), "the line taken away last: \(shown.debugDescription)")
        #expect(!shown.contains("seq 10"), "no model after Ctrl-C: \(shown.debugDescription)")
        try wedge.release()
        #expect(try daemon.terminate() == .exited(0))
    }

    /// The pid of a process called `name` below `ancestor` (script(1) starts the command through a shell), from /proc.
    private static func descendant(of ancestor: Int32, named name: String) -> Int32? {
        var parents: [Int32: Int32] = [:]
        var names: [Int32: String] = [:]
        for entry in (try? FileManager.default.contentsOfDirectory(atPath: "/proc")) ?? [] {
            guard let pid = Int32(entry),
                let stat = try? String(contentsOfFile: "/proc/\(pid)/stat", encoding: .utf8),
                let open = stat.firstIndex(of: "("), let close = stat.lastIndex(of: ")")
            else { continue }
            let fields = stat[stat.index(after: close)...].split(separator: " ")
            guard fields.count > 1, let parent = Int32(fields[1]) else { continue }
            parents[pid] = parent
            names[pid] = String(stat[stat.index(after: open)..<close])
        }
        for (pid, found) in names where found == name {
            var up = parents[pid]
            while let next = up, next > 1 {
                if next == ancestor { return pid }
                up = parents[next]
            }
        }
        return nil
    }

    /// The line's text from `status`'s `history`: the replay asked for, else the wait for the history thread.
    @Test func mobiusctlsProgressTextComesFromStatusHistory() throws {
        let running: JSONValue = [
            "pending": 2,
            "running": ["request": "model", "seq": 100_000, "from": 0, "done": 42_000, "of": 100_000, "seconds": 3.4],
        ]
        #expect(
            HistoryProgress.text(running, at: 100_000) == "replaying: 42% (42,000 of 100,000 events), 12,352 events/s")
        #expect(
            HistoryProgress.text(running, at: 7)
                == "waiting for the daemon's history thread: 2 replays of past models running or waiting")
        #expect(HistoryProgress.text(["pending": 0, "running": .null], at: 7)?.hasPrefix("waiting") == true)
        #expect(HistoryProgress.text(nil, at: 7) == nil, "a daemon without `history`")
    }

    /// Recovery stuck in the app's update says so without extending systemd's start timeout; once events are
    /// replayed again, each report extends it, and the log has the same lines.
    @Test func aLongRecoveryTellsSystemdAndTheLogHowFarItHasGot() throws {
        let wedge = try Wedge()
        let first = try wedge.start(name: "first")
        let client = try first.connect()
        for seq in 1...3 { #expect(try wedge.sendWedge(on: client) == Int64(seq)) }
        #expect(try first.terminate() == .exited(0))

        let listener = try NotifyListener(scratch: wedge.scratch)
        let daemon = try SystemdNotifyTests.start(
            listener, scratch: wedge.scratch, program: DaemonSpawn.fixture("mobiusd-fixture-wedge"),
            arguments: ["--state-dir", wedge.state])
        try wedge.waitUntilWedged()
        let stuck = try listener.next("a recovery report") { $0["STATUS"]?.hasPrefix("recovering:") == true }
        #expect(stuck["STATUS"] == "recovering: 0% (0 of 3 events), no event replayed for 1 s", "\(stuck.text)")
        #expect(stuck["EXTEND_TIMEOUT_USEC"] == nil, "no progress, no extension: \(stuck.text)")
        try wedge.release()
        try wedge.waitUntilWedged()
        let moving = try listener.next("progress") { $0["STATUS"]?.hasPrefix("recovering: 33%") == true }
        #expect(moving["STATUS"] == "recovering: 33% (1 of 3 events)", "\(moving.text)")
        #expect(moving["EXTEND_TIMEOUT_USEC"] == "10000000", "\(moving.text)")
        try wedge.release()
        try wedge.waitUntilWedged()
        try wedge.release()
        try listener.next("READY", "1")
        let log = daemon.standardError
        #expect(log.contains("recovering: 0% (0 of 3 events), no event replayed for 1 s after 1 s"), "\(log)")
        #expect(log.contains("recovering: 33% (1 of 3 events) after 4 s"), "\(log)")
        #expect(try daemon.connect().request("model").model == 3)
        #expect(try daemon.terminate() == .exited(0))
    }
}
