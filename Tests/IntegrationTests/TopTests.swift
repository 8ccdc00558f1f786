import Foundation
import MobiusJSON
import MobiusSystem
import MobiusTestSupport
import Testing

/// `mobiusctl top` on a real terminal (a tmux pane) against a real daemon: what it shows, that `q`, Ctrl-C and
/// SIGTERM end it with the terminal as it was (the same `stty -g`, the main screen back), and that a daemon that goes
/// away is said so with exit status 3. Piped, it prints one line a second.
@Suite(.serialized, .timeLimit(.scaled(minutes: 3)))
struct TopTests {
    /// A daemon with three events applied, and a pane whose shell records the terminal settings around `top`
    /// (`before`, `after`), its exit status (`status`) and its stderr (`err`).
    private func start() throws -> (CtlSandbox, TmuxPane) {
        let sandbox = CtlSandbox()
        try sandbox.startDaemon()
        for _ in 0..<3 { #expect(try sandbox.ctlAtSocket("send", #"{"type":"increment"}"#).exit == .exited(0)) }
        let pane = try topPane(sandbox)
        try pane.waitFor("mobiusd counter (0.1.0)  seq 3")
        return (sandbox, pane)
    }

    /// A pane running top against `sandbox`'s daemon, as `start` describes.
    private func topPane(_ sandbox: CtlSandbox) throws -> TmuxPane {
        try TmuxPane(
            """
            trap : INT TERM; cd '\(sandbox.directory)'; stty -g > before
            '\(CtlBinaries.mobiusctl)' --socket '\(sandbox.socketPath)' top 2> err; echo $? > status
            stty -g > after; echo ended; sleep 600
            """)
    }

    /// Waits for the shell's `ended` and returns top's exit status and stderr, checking the terminal is as it was.
    private func ended(_ sandbox: CtlSandbox, _ pane: TmuxPane) throws -> (status: String, stderr: String) {
        try pane.waitFor("ended")
        // FileSystem.read, not String(contentsOfFile:): Foundation's leaks 4 KiB reading an empty file (LeakSanitizer).
        let read = { (name: String) in
            (try? FileSystem.read(sandbox.directory + "/" + name)).map { String(decoding: $0, as: UTF8.self) } ?? ""
        }
        #expect(!read("before").isEmpty && read("before") == read("after"), "stty -g before and after top")
        let screen = try pane.capture()
        #expect(!screen.contains("q quits"), "the main screen is back: \(screen)")
        return (read("status").trimmingCharacters(in: .whitespacesAndNewlines), read("err"))
    }

    @Test func showsTheFiguresAndQuitsOnQ() throws {
        let (sandbox, pane) = try start()
        let screen = try pane.capture()
        for label in ["events/s", "ack       p50", "queue     0 of 65536", "journal   ", "snapshot none", "q quits"] {
            #expect(screen.contains(label), "\(label): \(screen)")
        }
        // The next refreshes follow what happens: a new event and its rate.
        #expect(try sandbox.ctlAtSocket("send", #"{"type":"increment"}"#).exit == .exited(0))
        try pane.waitFor("seq 4")
        try pane.keys("q")
        let (status, stderr) = try ended(sandbox, pane)
        #expect(status == "0" && stderr.isEmpty, "\(status) \(stderr)")
    }

    /// An effect-handler plugin gets a row under the table's header: its name, its state and counts that follow
    /// its effects. The counter's decrement at 0 emits `{"type":"beep"}`, which behave.py claims here.
    @Test func showsAPluginsRowWithTheEffectsItHandled() throws {
        let sandbox = CtlSandbox()
        let fx = PluginFixtures.behave(options: ["effects": ["beep"]])
        let config: JSONValue = ["app": "topfx", "update": ["builtin": "counter"], "plugins": ["fx": fx]]
        let path = sandbox.directory + "/config.json"
        try String(decoding: config.encoded(), as: UTF8.self).write(toFile: path, atomically: true, encoding: .utf8)
        try sandbox.startDaemon(arguments: ["--config", path, "--ephemeral"])
        let pane = try topPane(sandbox)
        // The row's cells: PLUGIN, STATE, IN FLIGHT, HANDLED, FAILED, RESTARTS.
        let row = { () throws -> [Substring]? in
            try pane.capture().split(separator: "\n").first { $0.hasPrefix("fx ") }?.split(separator: " ")
        }
        try DaemonTraffic.eventually("fx running, nothing handled") {
            try row() == ["fx", "running", "0", "0", "0", "0"]
        }
        let header = try pane.capture().split(separator: "\n").first { $0.hasPrefix("PLUGIN") }
        #expect(header?.split(separator: " ") == ["PLUGIN", "STATE", "IN", "FLIGHT", "HANDLED", "FAILED", "RESTARTS"])
        for _ in 0..<2 { #expect(try sandbox.ctlAtSocket("send", #"{"type":"decrement"}"#).exit == .exited(0)) }
        try DaemonTraffic.eventually("two effects handled") { try row() == ["fx", "running", "0", "2", "0", "0"] }
        try pane.keys("q")
        let (status, stderr) = try ended(sandbox, pane)
        #expect(status == "0" && stderr.isEmpty, "\(status) \(stderr)")
    }

    @Test func ctrlCEndsItWithTheTerminalRestored() throws {
        let (sandbox, pane) = try start()
        try pane.keys("C-c")
        let (status, stderr) = try ended(sandbox, pane)
        #expect(status == "0" && stderr.isEmpty, "\(status) \(stderr)")
    }

    @Test func sigtermEndsItWithTheTerminalRestored() throws {
        let (sandbox, pane) = try start()
        let shell = try pane.shellPID()
        let children = try String(contentsOfFile: "/proc/\(shell)/task/\(shell)/children", encoding: .utf8)
        let top = try #require(children.split(separator: " ").first.flatMap { Int32($0) }, "top's pid: \(children)")
        #expect(kill(top, SIGTERM) == 0)
        let (status, stderr) = try ended(sandbox, pane)
        #expect(status == "0" && stderr.isEmpty, "\(status) \(stderr)")
    }

    @Test func aDaemonThatGoesAwayIsSaidAndExitsThree() throws {
        let (sandbox, pane) = try start()
        try sandbox.stopDaemon()
        let (status, stderr) = try ended(sandbox, pane)
        #expect(status == "3", "\(status) \(stderr)")
        #expect(stderr.contains("mobiusctl: top: mobiusd at \(sandbox.socketPath) went away"), "\(stderr)")
    }

    @Test func pipedItPrintsOneLineASecondUntilSigterm() throws {
        let sandbox = CtlSandbox()
        try sandbox.startDaemon()
        #expect(try sandbox.ctlAtSocket("send", #"{"type":"increment"}"#).exit == .exited(0))
        let top = try sandbox.spawnCtl(["--socket", sandbox.socketPath, "top"])
        try DaemonTraffic.eventually("two lines") { top.stdout.split(separator: "\n").count >= 2 }
        let lines = top.stdout.split(separator: "\n")
        #expect(lines[0].hasPrefix("counter seq 1  events/s –  ack p50 "), "\(lines[0])")
        #expect(lines[1].hasPrefix("counter seq 1  events/s 0.0  ack p50 "), "\(lines[1])")
        #expect(lines[1].contains("  queue 0  subscribers 0  journal "), "\(lines[1])")
        top.send(.terminate)
        #expect(try top.wait() == .exited(0), "\(top.stderr)")
    }
}
