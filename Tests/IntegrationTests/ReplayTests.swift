import Foundation
import MobiusJSON
import MobiusSystem
import MobiusTestSupport
import Testing

/// Issue 25 item 2: `mobiusd replay` through the real binaries. Histories are recorded by the real daemon (the
/// built-in store, the door lock's Python update plugin), then replayed through changed updates: agreement, a changed
/// rule at its first seq with both models, the diff and both effect lists, `--all`, `--since`/`--until`, errors,
/// the state directory of a running daemon left as it was, and progress only on a terminal.
@Suite(.serialized, .timeLimit(.scaled(minutes: 4)))
struct ReplayTests {
    /// A state directory with a history the real daemon recorded.
    final class History {
        let scratch = DaemonScratch()
        var state: String { scratch.file("state") }
        /// The daemon, while it runs.
        private(set) var daemon: DaemonProcess?

        /// Runs `program` with `config` on the state directory, sends `events` one at a time (each must be
        /// acknowledged), and stops it unless `keepRunning`.
        init(
            config: String, events: [String], keepRunning: Bool = false, program: String = DaemonSpawn.mobiusdPath
        ) throws {
            let arguments = [
                "--config", scratch.write("current.json", config), "--state-dir", state, "--socket",
                scratch.file("x.sock"),
            ]
            let daemon = try DaemonProcess(
                scratch: scratch, arguments: arguments, socketPath: scratch.file("x.sock"), program: program)
            let client = try daemon.connect()
            for event in events {
                let reply = try client.request(event)
                guard reply.isAck else { throw DaemonTestError("\(event) was not applied: \(reply)") }
            }
            client.close()
            if keepRunning {
                self.daemon = daemon
            } else {
                _ = try daemon.terminate()
            }
        }

        var currentConfig: String { scratch.file("current.json") }

        /// Writes a candidate config and returns its path.
        func candidate(_ config: String, named name: String = "candidate.json") -> String {
            scratch.write(name, config)
        }

        /// `replay --state-dir STATE --current current.json ARGUMENTS` with `program`.
        func replay(_ arguments: [String], program: String = DaemonSpawn.mobiusdPath) throws -> DaemonToolRun {
            try DaemonToolRun.run(
                program, ["replay", "--state-dir", state, "--current", currentConfig] + arguments,
                workingDirectory: scratch.path, timeout: .seconds(60))
        }
    }

    static let store = #"{"app":"notes","update":{"builtin":"store"}}"#
    static let storeEvents = [
        #"{"type":"set","path":"/a","value":1}"#, #"{"type":"set","path":"/b","value":[1,2]}"#,
        #"{"type":"delete","path":"/a"}"#,
    ]

    static let doorEvents = [
        #"{"type":"unlock","code":"0000"}"#, #"{"type":"unlock","code":"1111"}"#, #"{"type":"unlock","code":"2222"}"#,
        #"{"type":"unlock","code":"1234"}"#, #"{"type":"lock"}"#,
    ]

    static let sdk = "\(DocCatalog.packageDirectory)/Plugins/sdk/python"

    /// The door lock's update.py with `replacements` made (each must be found), in `history`'s scratch, and a config
    /// that runs it as the update: the example's config with its plugin's `exec` changed.
    static func doorLockCandidate(_ history: History, replacing replacements: [(String, String)]) throws -> String {
        var source = try String(contentsOfFile: DoorLockExampleTests.example + "/update.py", encoding: .utf8)
        for (old, new) in replacements {
            #expect(source.contains(old), "update.py no longer has \(old)")
            source = source.replacingOccurrences(of: old, with: new)
        }
        return try plugin(history, named: "update.next.py", source: sdkPath(source))
    }

    /// `source` with the SDK found where this checkout has it (the example finds it next to itself).
    static func sdkPath(_ source: String) -> String {
        source.split(separator: "\n", omittingEmptySubsequences: false).map { line in
            line.hasPrefix("sys.path.insert(") ? "sys.path.insert(0, \"\(sdk)\")" : String(line)
        }.joined(separator: "\n")
    }

    /// A Python update plugin `source` in `history`'s scratch, and a candidate config that runs it with the door
    /// lock's model.
    static func plugin(_ history: History, named name: String, source: String) throws -> String {
        let path = history.scratch.write(name, source)
        try FileSystem.setMode(path, 0o755)
        let config: JSONValue = [
            "app": "door-lock", "model": ["locked": true, "failedAttempts": 0], "update": ["plugin": "door"],
            "plugins": ["door": ["exec": [.string(path)]]],
        ]
        return history.candidate(String(decoding: config.encoded(), as: UTF8.self))
    }

    /// A Python update plugin on the SDK whose update returns `expression` (of `model` and `event`), and a candidate
    /// config that runs it.
    static func update(_ history: History, named name: String, returning expression: String) throws -> String {
        try update(history, named: name, body: ["return \(expression)"])
    }

    /// A Python update plugin on the SDK whose update runs the lines of `body` (of `model` and `event`), and a
    /// candidate config that runs it.
    static func update(_ history: History, named name: String, body: [String]) throws -> String {
        try plugin(
            history, named: name,
            source: """
                #!/usr/bin/env python3
                import os, sys, time
                sys.path.insert(0, "\(sdk)")
                import mobiusd_plugin as mp

                plugin = mp.Plugin("\(name)", "1.0")


                @plugin.update
                def update(model, event):
                \(body.map { "    " + $0 }.joined(separator: "\n"))


                if __name__ == "__main__":
                    plugin.run()

                """)
    }

    static func doorLockHistory(keepRunning: Bool = false) throws -> History {
        try History(config: try DoorLockExampleTests.pluginAppConfig(), events: doorEvents, keepRunning: keepRunning)
    }

    /// The report's lines after the event line of `seq` up to the next blank line.
    static func divergence(at seq: UInt64, in report: String) -> [String] {
        let lines = report.split(separator: "\n", omittingEmptySubsequences: false).map(String.init)
        guard let start = lines.firstIndex(where: { $0.hasPrefix("seq \(seq) (") }) else { return [] }
        return Array(lines[start...].prefix { !$0.isEmpty })
    }

    // MARK: - Agreement

    @Test func theSameUpdateAgreesOnEveryEvent() throws {
        let history = try History(config: Self.store, events: Self.storeEvents)
        let run = try history.replay(["--config", history.candidate(Self.store)])
        #expect(run.exit == .exited(0), "\(run.stderr)")
        #expect(run.stdout.contains("The two updates agree on all 3 events (seqs 1-3).\n"), "\(run.stdout)")
        #expect(run.stdout.contains("  current:   built-in store (config \(history.currentConfig))\n"), "\(run.stdout)")
        #expect(run.stderr.isEmpty, "\(run.stderr)")
    }

    @Test("the Swift door lock agrees with its Python plugin on the plugin's history")
    func theTypedDoorLockAgreesWithThePlugin() throws {
        // Ending on a wrong code: the model after the last batch is not the one the history started from.
        let history = try History(
            config: try DoorLockExampleTests.pluginAppConfig(),
            events: Self.doorEvents + [#"{"type":"unlock","code":"9"}"#])
        let run = try history.replay([], program: DaemonSpawn.fixture("door-lock"))
        #expect(run.exit == .exited(0), "\(run.stdout)\(run.stderr)")
        #expect(run.stdout.contains("  candidate: door-lock's own app \"door-lock\" (no config)\n"), "\(run.stdout)")
        #expect(run.stdout.contains("The two updates agree on all 6 events (seqs 1-6).\n"), "\(run.stdout)")
    }

    // MARK: - Divergences

    @Test func aChangedRuleIsReportedAtItsFirstSeqWithBothModelsAndEffects() throws {
        let history = try Self.doorLockHistory()
        let candidate = try Self.doorLockCandidate(history, replacing: [("ALARM_AFTER = 3", "ALARM_AFTER = 2")])
        let run = try history.replay(["--config", candidate])
        #expect(run.exit == .exited(1), "\(run.stdout)\(run.stderr)")
        let block = Self.divergence(at: 2, in: run.stdout)
        #expect(block.first?.hasSuffix(#"): {"type":"unlock","code":"1111"}"#) == true, "\(run.stdout)")
        #expect(
            Array(block.dropFirst()) == [
                "  current:   applied; effects []",
                #"             model {"locked":true,"failedAttempts":2}"#,
                #"  candidate: applied; effects [{"type":"alarm","failedAttempts":2}]"#,
                #"             model {"locked":true,"failedAttempts":2}"#,
                "  the models are the same; the effects differ",
            ], "\(run.stdout)")
        #expect(!run.stdout.contains("\nseq 1 (") && !run.stdout.contains("\nseq 3 ("), "only the first")
        #expect(
            run.stdout.hasSuffix(
                "\nThe two updates differ at seq 2 (the first of seqs 1-5; --all lists every divergence).\n"),
            "\(run.stdout)")
    }

    @Test func aChangedModelIsShownAsADiffByPointer() throws {
        let history = try Self.doorLockHistory()
        let candidate = try Self.update(
            history, named: "remember.py",
            returning:
                #"mp.Next({"failedAttempts": model.get("failedAttempts", 0) * 10 + 10, "lastCode": event.get("code")})"#
        )
        let run = try history.replay(["--config", candidate])
        #expect(run.exit == .exited(1), "\(run.stdout)\(run.stderr)")
        #expect(
            Array(Self.divergence(at: 1, in: run.stdout).dropFirst()) == [
                "  current:   applied; effects []",
                #"             model {"locked":true,"failedAttempts":1}"#,
                "  candidate: applied; effects []",
                #"             model {"failedAttempts":10,"lastCode":"0000"}"#,
                "  model diff, current -> candidate (3 changes):",
                "    removed /locked: true",
                "    changed /failedAttempts: 1 -> 10",
                #"    added   /lastCode: "0000""#,
            ], "\(run.stdout)")

        // Each event is compared from the current's model: every one of them changes the model.
        let all = try history.replay(["--config", candidate, "--all"])
        #expect(all.exit == .exited(1))
        #expect(
            all.stdout.hasSuffix("\n5 divergences in 5 events of seqs 1-5, at seqs 1, 2, 3, 4, 5.\n"), "\(all.stdout)")
    }

    @Test func allListsAndCountsEveryDivergence() throws {
        let history = try Self.doorLockHistory()
        let candidate = try Self.doorLockCandidate(history, replacing: [("ALARM_AFTER = 3", "ALARM_AFTER = 2")])
        let run = try history.replay(["--config", candidate, "--all"])
        #expect(run.exit == .exited(1), "\(run.stdout)\(run.stderr)")
        #expect(Self.divergence(at: 2, in: run.stdout).count == 6, "\(run.stdout)")
        #expect(
            Array(Self.divergence(at: 3, in: run.stdout).dropFirst()) == [
                #"  current:   applied; effects [{"type":"alarm","failedAttempts":3}]"#,
                #"             model {"locked":true,"failedAttempts":3}"#,
                "  candidate: applied; effects []",
                #"             model {"locked":true,"failedAttempts":3}"#,
                "  the models are the same; the effects differ",
            ], "\(run.stdout)")
        #expect(run.stdout.hasSuffix("\n2 divergences in 5 events of seqs 1-5, at seqs 2, 3.\n"), "\(run.stdout)")
    }

    @Test func sinceAndUntilBoundTheRange() throws {
        let history = try Self.doorLockHistory()
        let candidate = try Self.doorLockCandidate(history, replacing: [("ALARM_AFTER = 3", "ALARM_AFTER = 2")])
        for (bounds, status, ending) in [
            (["--since", "2"], 1, "\n1 divergence in 3 events of seqs 3-5, at seq 3.\n"),
            (["--until", "2"], 1, "\n1 divergence in 2 events of seqs 1-2, at seq 2.\n"),
            (["--since", "0", "--until", "1"], 0, "\nThe two updates agree on the one event (seq 1).\n"),
            (["--since", "1", "--until", "1"], 0, "\nNothing to compare: no journaled events in the range.\n"),
            (["--since", "3"], 0, "\nThe two updates agree on all 2 events (seqs 4-5).\n"),
            (["--since", "5"], 0, "\nNothing to compare: no journaled events in the range.\n"),
        ] as [([String], Int32, String)] {
            let run = try history.replay(["--config", candidate, "--all"] + bounds)
            #expect(run.exit == .exited(status), "\(bounds): \(run.stdout)\(run.stderr)")
            #expect(run.stdout.hasSuffix(ending), "\(bounds): \(run.stdout)")
        }
        let late = try history.replay(["--config", candidate, "--since", "2"])
        #expect(late.stdout.contains("  start:     the start of the history, then the current update through seq 2\n"))
    }

    @Test("--since starts from the newest snapshot at or before it; compacted events cannot be replayed")
    func sinceStartsFromASnapshot() throws {
        // A snapshot every 10 events and small segments: compaction drops the oldest ones.
        let config = #"{"app":"n","update":{"builtin":"store"},"state":{"snapshotEvents":10,"segmentBytes":4096}}"#
        let total: UInt64 = 300
        let events = (1...total).map { #"{"type":"set","path":"/n","value":\#($0)}"# }
        let history = try History(config: config, events: events)
        let names = try DirectoryListing.names(in: history.state)
        let snapshots = names.compactMap { $0.hasSuffix(".snapshot") ? UInt64($0.dropLast(9)) : nil }.sorted()
        let firstSegment = try #require(
            names.compactMap { $0.hasSuffix(".journal") ? UInt64($0.dropLast(8)) : nil }.min())
        try #require(firstSegment > 1, "compacted: \(names.sorted())")
        let usable = snapshots.filter { $0 + 1 >= firstSegment && $0 + 3 < total }
        let base = try #require(usable.last, "\(names.sorted())")
        // Sets /n like the store, and says which n it saw: the model both start from shows in its first effect.
        let candidate = try Self.update(
            history, named: "saw.py",
            returning: #"mp.Next(dict(model, n=event["value"]), [{"type": "saw", "n": model.get("n")}])"#)
        let run = try history.replay(["--config", candidate, "--since", "\(base + 3)"])
        #expect(run.exit == .exited(1), "\(run.stdout)\(run.stderr)")
        #expect(
            run.stdout.contains(
                "  start:     the snapshot at seq \(base) (the current update's model there), then the current update "
                    + "through seq \(base + 3)\n"), "\(run.stdout)")
        #expect(
            Self.divergence(at: base + 4, in: run.stdout).dropFirst(3).first
                == #"  candidate: applied; effects [{"type":"saw","n":\#(base + 3)}]"#, "\(run.stdout)")

        let compacted = try history.replay(["--config", candidate, "--since", "0"])
        #expect(compacted.exit == .exited(2))
        let earliest = try #require(snapshots.first { $0 + 1 >= firstSegment })
        #expect(compacted.stderr.contains("the earliest --since is \(earliest)"), "\(compacted.stderr)")
        let whole = try history.replay(["--config", history.candidate(config)])
        #expect(whole.exit == .exited(0), "\(whole.stderr)")
        #expect(whole.stdout.contains("seqs \(earliest + 1)-\(total), \(total - earliest) events"), "\(whole.stdout)")
    }

    // MARK: - Errors

    @Test func whatCannotBeComparedIsAnErrorThatSaysWhy() throws {
        let history = try History(config: Self.store, events: Self.storeEvents)
        let candidate = history.candidate(Self.store)
        let bogus = history.candidate(#"{"update":{"builtin":"store"},"bogus":1}"#, named: "bogus.json")
        let failing = history.scratch.write("failing.sh", "#!/bin/sh\necho '<3>no luck today' >&2\nexit 1\n")
        try FileSystem.setMode(failing, 0o755)
        let noStart = history.candidate(
            #"{"update":{"plugin":"u"},"plugins":{"u":{"exec":["\#(failing)"]}}}"#, named: "nostart.json")
        for (arguments, message) in [
            (["--config", bogus], "\(bogus): bogus: unknown key"),
            (["--config", candidate, "--until", "9"], "--until 9 is past the last journaled event, seq 3"),
            (["--config", candidate, "--since", "4"], "--since 4 is past the last journaled event, seq 3"),
            (["--config", noStart], "did not start:"),
            (["--config", noStart], "no luck today"),
            (["--config", candidate, "--since", "x"], #"--since: must be a seq"#),
            (["--config", candidate, "--follow"], "--follow: unknown option"),
        ] {
            let run = try history.replay(arguments)
            #expect(run.exit == .exited(2), "\(arguments): \(run.stdout)\(run.stderr)")
            // The last line: a plugin's own stderr lines come before it, in the log's format.
            let last = run.stderr.split(separator: "\n").last ?? ""
            #expect(last.hasPrefix("mobiusd replay: "), "\(arguments): \(run.stderr)")
            #expect(run.stderr.contains(message), "\(arguments): \(run.stderr)")
            #expect(run.stdout.isEmpty, "\(arguments): \(run.stdout)")
        }
        let missing = try DaemonToolRun.mobiusd(["replay", "--config", candidate, "--state-dir", "/nonexistent/x"])
        #expect(missing.exit == .exited(2))
        #expect(missing.stderr.contains("cannot read the state directory /nonexistent/x"), "\(missing.stderr)")
        let nameless = try DaemonToolRun.mobiusd(["replay", "--config", candidate, "--state-dir", history.state])
        #expect(nameless.exit == .exited(2))
        #expect(nameless.stderr.contains("name the daemon's config with --current FILE"), "\(nameless.stderr)")
    }

    @Test func damageInTheJournalNamesTheFileAndTheOffset() throws {
        let history = try History(config: Self.store, events: Self.storeEvents)
        let segment = history.state + "/" + String(repeating: "0", count: 19) + "1.journal"
        var bytes = try FileSystem.read(segment)
        // The second record: after the 16-byte header and the first record (24 bytes and its event).
        let first = Int(bytes[16]) | Int(bytes[17]) << 8
        let second = 16 + 24 + first
        bytes[second + 24] ^= 0x20
        try Data(bytes).write(to: URL(fileURLWithPath: segment))
        let run = try history.replay(["--config", history.candidate(Self.store)])
        #expect(run.exit == .exited(2), "\(run.stdout)\(run.stderr)")
        #expect(
            run.stderr.contains(
                "the journal segment \(segment) is damaged at byte \(second): a checksum mismatch, and a valid record "
                    + "of seq 3 follows at byte "), "\(run.stderr)")
    }

    @Test("a torn last write ends the replay where recovery ends the journal, and the report says so")
    func aTornLastWriteIsNamed() throws {
        let history = try History(config: Self.store, events: Self.storeEvents)
        let segment = history.state + "/" + String(repeating: "0", count: 19) + "1.journal"
        var bytes = try FileSystem.read(segment)
        // The records end where the zero-filled room starts: a record header whose event never made it follows.
        var end = 16
        while end + 24 <= bytes.count, bytes[end..<(end + 4)].contains(where: { $0 != 0 }) {
            end += 24 + (Int(bytes[end]) | Int(bytes[end + 1]) << 8)
        }
        if bytes.count < end + 24 { bytes += [UInt8](repeating: 0, count: end + 24 - bytes.count) }
        bytes.replaceSubrange(end..<(end + 4), with: [200, 0, 0, 0])
        try Data(bytes).write(to: URL(fileURLWithPath: segment))
        let run = try history.replay(["--config", history.candidate(Self.store)])
        #expect(run.exit == .exited(0), "\(run.stdout)\(run.stderr)")
        #expect(run.stdout.contains("The two updates agree on all 3 events (seqs 1-3).\n"), "\(run.stdout)")
        #expect(
            run.stdout.contains("Note: the journal ends at seq 3: \(segment) at byte \(end): "), "\(run.stdout)")
        let past = try history.replay(["--config", history.candidate(Self.store), "--until", "4"])
        #expect(past.exit == .exited(2))
        #expect(past.stderr.contains("the journal ends at a torn write: \(segment) at byte \(end)"), "\(past.stderr)")
    }

    // MARK: - Read-only

    /// What `replay` must not change: each entry's inode, size and modification time, and the directory's own.
    static func snapshot(of directory: String) throws -> [String: String] {
        var all: [String: String] = [:]
        for name in try DirectoryListing.names(in: directory) + ["."] {
            let attributes = try FileManager.default.attributesOfItem(atPath: directory + "/" + name)
            let modified = (attributes[.modificationDate] as? Date)?.timeIntervalSince1970 ?? 0
            all[name] = "\(attributes[.systemFileNumber] ?? 0) \(attributes[.size] ?? 0) \(modified)"
        }
        return all
    }

    @Test("replay reads the state directory of a running daemon and leaves every file as it was")
    func theStateOfARunningDaemonIsOnlyRead() throws {
        let history = try History(config: Self.store, events: Self.storeEvents, keepRunning: true)
        let daemon = try #require(history.daemon)
        let candidate = history.candidate(Self.store)
        let before = try Self.snapshot(of: history.state)
        let run = try history.replay(["--config", candidate])
        #expect(run.exit == .exited(0), "\(run.stdout)\(run.stderr)")
        #expect(try Self.snapshot(of: history.state) == before)
        // The daemon goes on: it still holds the directory and journals the next event.
        #expect(try daemon.connect().request(#"{"type":"set","path":"/c","value":3}"#).seq == 4)
        let again = try history.replay(["--config", candidate])
        #expect(again.stdout.contains("The two updates agree on all 4 events (seqs 1-4)."), "\(again.stdout)")
        #expect(daemon.isRunning)
        _ = try daemon.terminate()
    }

    @Test("Ctrl-C ends replay and its update plugins, even one busy in an update, and leaves the directory as it was")
    func anInterruptEndsThePlugins() throws {
        let history = try History(config: Self.store, events: Self.storeEvents)
        let pidFile = history.scratch.file("plugin.pid")
        // Busy in its first update far longer than the test: only being ended ends it.
        let candidate = try Self.update(
            history, named: "busy.py",
            body: [
                "with open(\"\(pidFile)\", \"w\") as f:", "    f.write(str(os.getpid()))", "time.sleep(600)",
                "return mp.Next(model)",
            ])
        let before = try Self.snapshot(of: history.state)
        let replay = try DaemonSpawn.start(
            DaemonSpawn.mobiusdPath,
            ["replay", "--state-dir", history.state, "--current", history.currentConfig, "--config", candidate],
            stdoutPath: history.scratch.file("stdout"), stderrPath: history.scratch.file("stderr"))
        let deadline = ContinuousClock.now + TestTime.scaled(.seconds(20))
        while history.scratch.read("plugin.pid").isEmpty && ContinuousClock.now < deadline {
            try SystemClock.sleep(nanoseconds: 10_000_000)
        }
        let pid = try #require(Int32(history.scratch.read("plugin.pid")), "the plugin never got an update")
        try replay.send(.interrupt)
        let ended = replay.termination(within: .seconds(20))
        #expect(ended == .exited(130), "\(String(describing: ended)): \(history.scratch.read("stderr"))")
        #expect(history.scratch.read("stderr").contains("mobiusd replay: interrupted"))
        #expect(!DaemonSpawn.processExists(pid), "the plugin outlived replay")
        #expect(try Self.snapshot(of: history.state) == before)
        if DaemonSpawn.processExists(pid) { try? ChildProcess(processID: pid).send(.kill) }
    }

    // MARK: - Progress and batches

    @Test("progress shows on a terminal, not on a pipe or a file; update plugins get the events in batches")
    func progressOnlyOnATerminal() throws {
        let record = PluginFixtures.config(plugins: [:])
        let history = try History(config: record, events: Array(repeating: #"{"type":"add","n":1}"#, count: 100))
        // Both sides answer each batch of 10 after 0.15 s: the replay takes more than the second progress waits.
        let calls = history.scratch.file("calls")
        let slow = PluginFixtures.config(
            plugins: [:], updateOptions: ["delay": 0.15, "calls": .string(calls)], updateExtra: ["maxBatch": 10])
        let candidate = history.candidate(slow)
        let current = history.candidate(slow, named: "slow-current.json")
        let arguments = ["replay", "--state-dir", history.state, "--current", current, "--config", candidate]

        let piped = try DaemonToolRun.run(DaemonSpawn.mobiusdPath, arguments, timeout: .seconds(60))
        #expect(piped.exit == .exited(0), "\(piped.stdout)\(piped.stderr)")
        #expect(!piped.stderr.contains("events/s"), "\(piped.stderr)")
        #expect(!piped.stdout.contains("events/s"))
        let batches = history.scratch.read("calls").split(separator: "\n")
        #expect(batches.count == 20 && batches.allSatisfy { $0 == "updateBatch 10" }, "\(batches)")

        let command = ([DaemonSpawn.mobiusdPath] + arguments).map { "'\($0)'" }.joined(separator: " ")
        let filed = try DaemonToolRun.run(
            "/bin/sh", ["-c", "\(command) 2>'\(history.scratch.file("stderr"))'"], timeout: .seconds(60))
        #expect(filed.exit == .exited(0), "\(filed.stdout)")
        #expect(history.scratch.read("stderr").isEmpty, "a file gets no progress")

        let script = try #require(DaemonSpawn.which("script"))
        let terminal = try DaemonToolRun.run(
            script, ["-qefc", command, history.scratch.file("typescript")], timeout: .seconds(60))
        #expect(terminal.exit == .exited(0), "\(terminal.stdout)\(terminal.stderr)")
        #expect(terminal.stdout.contains("\r\u{1B}[Kreplay: seq "), "\(terminal.stdout.debugDescription)")
        #expect(terminal.stdout.contains(" events/s, ETA "), "\(terminal.stdout.debugDescription)")
        #expect(terminal.stdout.contains("The two updates agree on all 100 events (seqs 1-100)."))
    }

    // MARK: - The docs

    @Test("docs/apps.md's door lock workflow prints what the page shows")
    func appsMdShowsWhatReplayPrints() throws {
        let page = try String(contentsOfFile: "\(DocCatalog.packageDirectory)/docs/apps.md", encoding: .utf8)
        let marker = "<!-- replay output: checked by Tests/IntegrationTests/ReplayTests.swift -->\n```text\n"
        let start = try #require(page.range(of: marker))
        let end = try #require(page.range(of: "\n```\n", range: start.upperBound..<page.endIndex))
        let shown = String(page[start.upperBound..<end.lowerBound]) + "\n"
        #expect(page.contains("sudo sed 's/^ALARM_AFTER = 3$/ALARM_AFTER = 2/' update.py"))

        let history = try Self.doorLockHistory()
        _ = try Self.doorLockCandidate(history, replacing: [("\nALARM_AFTER = 3\n", "\nALARM_AFTER = 2\n")])
        let run = try DaemonToolRun.run(
            DaemonSpawn.mobiusdPath,
            ["replay", "--config", "candidate.json", "--current", history.currentConfig, "--state-dir", history.state],
            workingDirectory: history.scratch.path, timeout: .seconds(60))
        #expect(run.exit == .exited(1), "\(run.stderr)")
        var printed = run.stdout
        for (path, installed) in [
            (history.state, "/var/lib/mobiusd/door-lock"), (history.currentConfig, "/etc/mobiusd/door-lock.json"),
            (DoorLockExampleTests.example + "/update.py", "/etc/mobiusd/update.py"),
            (history.scratch.file("update.next.py"), "/etc/mobiusd/update.next.py"),
            ("(config candidate.json)", "(config door-lock.next.json)"),
        ] {
            printed = printed.replacingOccurrences(of: path, with: installed)
        }
        // The epoch and the time are the page's.
        for pattern in ["epoch [0-9a-f]{16}", "\\d{4}-\\d\\d-\\d\\dT\\d\\d:\\d\\d:\\d\\d\\.\\d{3}Z"] {
            let expression = try NSRegularExpression(pattern: pattern)
            let page = shown as NSString
            let found = try #require(expression.firstMatch(in: shown, range: NSRange(location: 0, length: page.length)))
            printed = expression.stringByReplacingMatches(
                in: printed, range: NSRange(location: 0, length: (printed as NSString).length),
                withTemplate: page.substring(with: found.range))
        }
        #expect(printed == shown)
    }

    // MARK: - Help

    @Test func theHelpListsTheCommandAndItsOptions() throws {
        let help = try DaemonToolRun.mobiusd(["replay", "--help"])
        #expect(help.exit == .exited(0))
        #expect(help.stdout.hasPrefix("Usage: mobiusd replay --state-dir DIR"), "\(help.stdout)")
        let daemon = try DaemonToolRun.mobiusd(["--help"])
        #expect(daemon.stdout.contains("\nCommands:\n  replay "), "\(daemon.stdout)")
        let typed = try DaemonToolRun.run(DaemonSpawn.fixture("door-lock"), ["replay", "--help"])
        #expect(typed.stdout.hasPrefix("Usage: door-lock replay --state-dir DIR"), "\(typed.stdout)")
        #expect(typed.stdout.contains("(without one: this program's own app)"), "\(typed.stdout)")
    }
}
