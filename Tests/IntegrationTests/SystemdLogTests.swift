import MobiusSystem
import Testing

/// Issue #7, logging: under systemd records go to journald's native socket with priority and fields, or to stderr
/// with `<N>` prefixes when that socket is missing; a `JOURNAL_STREAM` that is not the daemon's stderr, or none,
/// gives timestamped lines with levels; `--log-level` filters all of them. journald is played by a socket the test
/// owns, mounted into the daemon's private mount namespace (`unshare`, which the tests can use as root).
@Suite(
    .serialized, .timeLimit(.scaled(minutes: 2)),
    .enabled(
        if: SystemTools.canUnshareMounts,
        "unshare --mount is missing or not permitted (the tests run as root with CAP_SYS_ADMIN)"))
struct SystemdLogTests {
    static func start(
        scratch: DaemonScratch, launcher: [String], arguments: [String] = []
    ) throws -> (DaemonProcess, NotifyListener) {
        let notify = try NotifyListener(scratch: scratch)
        var environment = SystemProcess.environmentVariables()
        environment["JOURNAL_STREAM"] = nil
        environment["NOTIFY_SOCKET"] = notify.path
        let daemon = try DaemonProcess(
            scratch: scratch, arguments: ["--ephemeral", "--socket", scratch.file("x.sock")] + arguments,
            socketPath: scratch.file("x.sock"), launcher: launcher, environment: environment, waitForSocket: false)
        try notify.next("READY", "1")
        return (daemon, notify)
    }

    @Test(
        "with journald's socket: records carry MESSAGE, PRIORITY, SYSLOG_IDENTIFIER and the fields; stderr stays empty")
    func nativeJournal() throws {
        let scratch = DaemonScratch()
        let journal = try JournalListener(scratch: scratch)
        let (daemon, _) = try Self.start(
            scratch: scratch, launcher: JournalListener.launcher(journalDirectory: journal.directory))
        // The start-up banner is a record like any other, not a line on stdout.
        let banner = try journal.next { $0["MESSAGE"]?.contains("listening on") == true }
        #expect(banner["PRIORITY"] == "5", "\(banner)")
        #expect(
            banner["MESSAGE"]?.hasPrefix("mobiusd ") == true && banner["MESSAGE"]?.contains(#"app "counter""#) == true)
        let ready = try journal.next { $0["MESSAGE"] == "ready" }
        #expect(ready["PRIORITY"] == "5")
        #expect(ready["SYSLOG_IDENTIFIER"] == "mobiusd")
        #expect(ready["MOBIUSD_SEQ"] == "0")
        #expect(try daemon.terminate() == .exited(0))
        try journal.next { $0["MESSAGE"] == "stopped" }
        #expect(!daemon.standardError.contains("ready"), "\(daemon.standardError)")
        #expect(daemon.standardOutput.isEmpty, "\(daemon.standardOutput)")
    }

    @Test("a plugin's stderr line reaches the journal with its priority and MOBIUSD_PLUGIN")
    func pluginField() throws {
        let scratch = DaemonScratch()
        let journal = try JournalListener(scratch: scratch)
        scratch.write("mobiusd.json", PluginFixtures.config(plugins: ["worker": PluginFixtures.behave()]))
        let (daemon, _) = try Self.start(
            scratch: scratch, launcher: JournalListener.launcher(journalDirectory: journal.directory),
            arguments: ["--config", scratch.file("mobiusd.json")])
        let line = try journal.next { $0["MOBIUSD_PLUGIN"] == "worker" }
        #expect(line["MESSAGE"] == "plugin worker: initializing in mode normal", "\(line)")
        #expect(line["PRIORITY"] == "6", "the plugin's own <6> prefix")
        #expect(try daemon.terminate() == .exited(0))
    }

    @Test("control bytes and bytes that are not UTF-8 from a plugin reach the journal escaped, as text")
    func escapedRecords() throws {
        let scratch = DaemonScratch()
        let journal = try JournalListener(scratch: scratch)
        scratch.write("mobiusd.json", PluginFixtures.config(plugins: ["worker": PluginFixtures.behave()]))
        let (daemon, _) = try Self.start(
            scratch: scratch, launcher: JournalListener.launcher(journalDirectory: journal.directory),
            arguments: ["--config", scratch.file("mobiusd.json")])
        let client = try daemon.connect()
        #expect(try client.request(PluginFixtures.emit(["type": "job", "do": "controls"])).isAck)
        // The stderr line and the violation come in either order.
        var stderrLine: [String: String] = [:]
        var violation: [String: String] = [:]
        _ = try journal.next { record in
            let message = record["MESSAGE"] ?? ""
            if message.hasPrefix("plugin worker: stderr") { stderrLine = record }
            if message.contains("broke the protocol") { violation = record }
            return !stderrLine.isEmpty && !violation.isEmpty
        }
        let shown = #"\x00 nul \x1b[31m esc \x07 bel \xff\xc3 not UTF-8 é"#
        #expect(stderrLine["MESSAGE"] == "plugin worker: stderr " + shown, "\(stderrLine)")
        #expect(violation["MESSAGE"]?.hasSuffix(": not json " + shown) == true, "\(violation)")
        for record in [stderrLine, violation] {
            #expect(!(record["MESSAGE"] ?? "").unicodeScalars.contains { $0.value < 0x20 }, "\(record)")
        }
        #expect(try daemon.terminate() == .exited(0))
    }

    @Test("--log-level warning keeps notices out of the journal and lets errors through")
    func levelFilter() throws {
        let scratch = DaemonScratch()
        let journal = try JournalListener(scratch: scratch)
        scratch.write("mobiusd.json", #"{"update":{"builtin":"counter"}}"#)
        let (daemon, notify) = try Self.start(
            scratch: scratch, launcher: JournalListener.launcher(journalDirectory: journal.directory),
            arguments: ["--config", scratch.file("mobiusd.json"), "--log-level", "warning"])
        scratch.write("mobiusd.json", "{broken")
        daemon.send(signal: 1)
        try notify.next("RELOADING", "1")
        let refused = try journal.next { $0["MESSAGE"]?.hasPrefix("reload refused") == true }
        #expect(refused["PRIORITY"] == "3")
        #expect(try daemon.terminate() == .exited(0))
        #expect(!journal.records.contains { $0["PRIORITY"] == "5" || $0["PRIORITY"] == "6" }, "\(journal.records)")
    }

    @Test("JOURNAL_STREAM on stderr but no journald socket: <N>-prefixed lines on stderr")
    func streamPrefixes() throws {
        let scratch = DaemonScratch()
        let (daemon, notify) = try Self.start(
            scratch: scratch, launcher: JournalListener.launcher(journalDirectory: nil))
        #expect(try daemon.terminate() == .exited(0))
        try notify.next("STOPPING", "1")
        let lines = daemon.standardError.split(separator: "\n")
        #expect(lines.contains("<5>ready"), "\(lines)")
        #expect(lines.contains { $0.hasPrefix("<5>mobiusd ") && $0.contains(" listening on ") }, "\(lines)")
        #expect(lines.allSatisfy { $0.hasPrefix("<") }, "\(lines)")
        #expect(daemon.standardOutput.isEmpty, "\(daemon.standardOutput)")
    }

    @Test("a JOURNAL_STREAM that is not the daemon's stderr gives timestamped lines with levels")
    func inheritedStreamIgnored() throws {
        let scratch = DaemonScratch()
        let (daemon, notify) = try Self.start(scratch: scratch, launcher: ["/usr/bin/env", "JOURNAL_STREAM=1:2"])
        #expect(try daemon.terminate() == .exited(0))
        try notify.next("STOPPING", "1")
        let ready = daemon.standardError.split(separator: "\n").first { $0.hasSuffix(" notice ready") }
        let line = try #require(ready, "\(daemon.standardError)")
        #expect(line.first?.isNumber == true && line.contains("T") && line.contains("Z notice"), "\(line)")
    }
}
