import Foundation
import MobiusSystem
import Testing

/// Issue 11 item 1: a typed app's binary is its own program. The built `todo-daemon` is run as a user would run it;
/// its help, version, errors and banner carry its name, its summary and its example event, never mobiusd's counter.
@Suite(.serialized, .timeLimit(.scaled(minutes: 2)))
struct TypedAppIdentityTests {
    static var todoDaemon: String { DaemonSpawn.fixture("todo-daemon") }

    /// The kit's version, from the built mobiusd.
    static func kitVersion() throws -> String {
        let run = try DaemonToolRun.mobiusd(["--version"])
        let words = run.stdout.split(whereSeparator: \.isWhitespace)
        try #require(words.count == 2 && words[0] == "mobiusd", "mobiusd --version: \(run.stdout)")
        return String(words[1])
    }

    /// What a typed app must never print: the kit's name as its own, or the counter's events.
    static func expectNoCounter(_ text: String, _ what: String) {
        #expect(!text.contains("mobiusd:"), "\(what): \(text)")
        #expect(!text.contains("Usage: mobiusd"), "\(what): \(text)")
        #expect(!text.contains("increment"), "\(what): \(text)")
        #expect(!text.contains("counter"), "\(what): \(text)")
    }

    @Test func helpIsTheAppsOwn() throws {
        let run = try DaemonToolRun.run(Self.todoDaemon, ["--help"])
        #expect(run.exit == .exited(0), "\(run.exit): \(run.stderr)")
        #expect(run.stdout.hasPrefix("Usage: todo-daemon [--config FILE] [options]\n"), "\(run.stdout)")
        #expect(run.stdout.contains("Keeps a to-do list."), "the app's summary: \(run.stdout)")
        #expect(
            run.stdout.contains(#"echo '{"type":"add","title":"buy milk"}' | socat - UNIX-CONNECT:SOCKET"#),
            "the app's example event: \(run.stdout)")
        #expect(run.stdout.contains("mobiusctl --socket SOCKET watch"), "\(run.stdout)")
        #expect(run.stdout.contains("/todo.sock unless --socket"), "the app's default socket: \(run.stdout)")
        for flag in ["--config", "--socket", "--state-dir", "--ephemeral", "--log-level", "--check", "--version"] {
            #expect(run.stdout.contains(flag), "--help must mention \(flag)")
        }
        Self.expectNoCounter(run.stdout, "--help")
        #expect(run.stderr.isEmpty, "\(run.stderr)")
    }

    @Test func versionShowsTheAppsAndTheKits() throws {
        let kit = try Self.kitVersion()
        let run = try DaemonToolRun.run(Self.todoDaemon, ["--version"])
        #expect(run.exit == .exited(0), "\(run.exit)")
        #expect(run.stdout == "todo-daemon 1.0.0 (mobiusd kit \(kit))\n", "\(run.stdout)")
    }

    @Test func aBadFlagIsRefusedUnderTheAppsName() throws {
        let run = try DaemonToolRun.run(Self.todoDaemon, ["--frobnicate"])
        #expect(run.exit == .exited(2), "\(run.exit)")
        #expect(
            run.stderr == "todo-daemon: --frobnicate: unknown option; see todo-daemon --help\n", "\(run.stderr)")
        Self.expectNoCounter(run.stderr, "a bad flag")
        #expect(run.stdout.isEmpty, "\(run.stdout)")
    }

    @Test(arguments: [
        (#"{"update":{"builtin":"counter"}}"#, "update: this app brings its own update function"),
        (#"{"socket":{"mode":"rw"}}"#, "socket.mode:"),
        ("{\"app\":\"todo\",}", "line 1, column 15"),
    ])
    func aBadConfigIsRefusedUnderTheAppsName(config: String, message: String) throws {
        let scratch = DaemonScratch()
        let path = scratch.write("todo.json", config)
        for arguments in [["--check", "--config", path], ["--config", path, "--socket", scratch.file("x.sock")]] {
            let run = try DaemonToolRun.run(Self.todoDaemon, arguments)
            #expect(run.exit == .exited(1), "\(arguments): \(run.exit)")
            #expect(run.stderr.hasPrefix("todo-daemon: \(path): "), "\(arguments): \(run.stderr)")
            #expect(run.stderr.contains(message), "\(arguments): \(run.stderr)")
            #expect(!run.stderr.contains("mobiusd:"), "\(arguments): \(run.stderr)")
        }
    }

    @Test func checkOfAGoodConfigNamesTheProgram() throws {
        let scratch = DaemonScratch()
        let path = scratch.write("todo.json", #"{"socket":{"path":"todo.sock"}}"#)
        let run = try DaemonToolRun.run(Self.todoDaemon, ["--check", "--config", path])
        #expect(run.exit == .exited(0), "\(run.exit): \(run.stderr)")
        #expect(
            run.stdout == "todo-daemon: configuration OK (app \"todo\", socket \(scratch.file("todo.sock")))\n",
            "\(run.stdout)")
    }

    @Test func theBannerNamesTheProgramAndShowsTheAppsEvent() throws {
        let kit = try Self.kitVersion()
        let scratch = DaemonScratch()
        let socket = scratch.file("x.sock")
        let daemon = try DaemonProcess(
            scratch: scratch, arguments: ["--socket", socket, "--ephemeral"], socketPath: socket, name: "todo",
            program: Self.todoDaemon)
        try DaemonTraffic.eventually("the banner is written") { daemon.standardOutput.contains("watch:") }
        let banner = daemon.standardOutput
        #expect(
            banner.hasPrefix("todo-daemon 1.0.0 (mobiusd kit \(kit)): app \"todo\" listening on \(socket)\n"),
            "\(banner)")
        #expect(
            banner.contains(#"echo '{"type":"add","title":"buy milk"}' | socat - UNIX-CONNECT:\#(socket)"#), "\(banner)"
        )
        Self.expectNoCounter(banner, "the banner")
        #expect(try daemon.terminate() == .exited(0))
    }

    /// Without a name from the app, the program is called what it was started as: a link named `my-todo` is
    /// `my-todo`.
    @Test func theNameComesFromTheCommandLine() throws {
        try Self.expectName("my-todo", whenStartedAs: "my-todo")
    }

    /// A name a terminal cannot show (control characters, which whoever starts the program chooses) is replaced by
    /// the executable's own file name.
    @Test func aNameWithControlCharactersIsNotShown() throws {
        try Self.expectName("todo-daemon", whenStartedAs: "todo\u{1B}[2J\nfake")
    }

    /// Runs `todo-daemon` through a link named `link` with `--help`, `--version` and a bad flag.
    static func expectName(_ expected: String, whenStartedAs link: String) throws {
        let scratch = DaemonScratch()
        let path = scratch.file(link)
        try FileManager.default.createSymbolicLink(atPath: path, withDestinationPath: Self.todoDaemon)
        let help = try DaemonToolRun.run(path, ["--help"])
        #expect(help.stdout.hasPrefix("Usage: \(expected) [--config FILE]"), "\(help.stdout.debugDescription)")
        let version = try DaemonToolRun.run(path, ["--version"])
        #expect(version.stdout.hasPrefix("\(expected) 1.0.0 (mobiusd kit "), "\(version.stdout.debugDescription)")
        let bad = try DaemonToolRun.run(path, ["--bogus"])
        #expect(
            bad.stderr == "\(expected): --bogus: unknown option; see \(expected) --help\n",
            "\(bad.stderr.debugDescription)")
    }

    /// Under systemd the journal knows the program by its name (`journalctl -t todo-daemon`).
    @Test(.enabled(if: SystemTools.canUnshareMounts, "unshare --mount is missing or not permitted"))
    func theJournalIdentifierIsTheProgramsName() throws {
        let scratch = DaemonScratch()
        let journal = try JournalListener(scratch: scratch)
        var environment = SystemProcess.environmentVariables()
        environment["JOURNAL_STREAM"] = nil
        environment["NOTIFY_SOCKET"] = nil
        let socket = scratch.file("x.sock")
        let daemon = try DaemonProcess(
            scratch: scratch, arguments: ["--ephemeral", "--socket", socket], socketPath: socket, name: "todo",
            program: Self.todoDaemon, launcher: JournalListener.launcher(journalDirectory: journal.directory),
            environment: environment)
        #expect(try daemon.terminate() == .exited(0))
        let stopped = try journal.next { $0["MESSAGE"] == "stopped" }
        #expect(stopped["SYSLOG_IDENTIFIER"] == "todo-daemon", "\(stopped)")
    }

    @Test func mobiusdKeepsItsOwnHelpAndVersion() throws {
        let help = try DaemonToolRun.mobiusd(["--help"])
        #expect(help.stdout.hasPrefix("Usage: mobiusd [--config FILE] [options]\n"), "\(help.stdout)")
        #expect(help.stdout.contains("With no --config it runs the embedded counter app."), "\(help.stdout)")
        #expect(help.stdout.contains(#"echo '{"type":"increment"}' | socat - UNIX-CONNECT:SOCKET"#), "\(help.stdout)")
        #expect(help.stdout.contains("/counter.sock unless --socket"), "\(help.stdout)")
        let bad = try DaemonToolRun.mobiusd(["--bogus"])
        #expect(bad.stderr == "mobiusd: --bogus: unknown option; see mobiusd --help\n", "\(bad.stderr)")
    }
}
