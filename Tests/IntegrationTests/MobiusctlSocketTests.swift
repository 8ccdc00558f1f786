import Testing

/// Which socket mobiusctl talks to, and what it says when nobody answers there.
@Suite(.serialized, .timeLimit(.scaled(minutes: 2)))
struct MobiusctlSocketTests {
    @Test func socketOptionBeforeAfterAndWithEquals() throws {
        let sandbox = CtlSandbox()
        try sandbox.startDaemon()
        let path = sandbox.socketPath
        for arguments in [["--socket", path, "ping"], ["ping", "--socket", path], ["--socket=\(path)", "ping"]] {
            let run = try sandbox.ctl(arguments)
            #expect(run.exit == .exited(0), "\(arguments): \(run)")
            #expect(run.stdout == "{\"ok\":true,\"seq\":0}\n")
        }
        // A socket where --app does not look: the banner names it.
        #expect(sandbox.daemon?.stdout.contains("  watch: mobiusctl --socket \(path) watch\n") == true)
    }

    @Test func environmentVariableAndItsPrecedence() throws {
        let sandbox = CtlSandbox()
        try sandbox.startDaemon()
        let fromEnvironment = try sandbox.ctl(["ping"], environment: ["MOBIUSD_SOCKET": sandbox.socketPath])
        #expect(fromEnvironment.exit == .exited(0), "\(fromEnvironment)")
        let flagWins = try sandbox.ctl(
            ["ping", "--socket", sandbox.socketPath], environment: ["MOBIUSD_SOCKET": "/nonexistent/x.sock"])
        #expect(flagWins.exit == .exited(0), "\(flagWins)")
    }

    @Test func defaultSocketOfTheDefaultAppUnderXDGRuntimeDir() throws {
        let sandbox = CtlSandbox()
        try sandbox.startDaemon(defaultSocket: true)
        let run = try sandbox.ctl(["hello"])
        #expect(run.exit == .exited(0), "\(run)")
        #expect(run.stdout.contains("\"app\":\"counter\""))
    }

    @Test func appOptionFindsTheSocketTheDaemonNamedAfterTheApp() throws {
        let sandbox = CtlSandbox()
        let config = sandbox.directory + "/garage.json"
        try #"{"app":"garage","update":{"builtin":"counter"}}"#.write(toFile: config, atomically: true, encoding: .utf8)
        try sandbox.startDaemon(defaultSocket: true, arguments: ["--config", config, "--ephemeral"])
        for arguments in [["--app", "garage", "hello"], ["hello", "--app=garage"]] {
            let run = try sandbox.ctl(arguments, environment: ["MOBIUSD_SOCKET": "/nonexistent/x.sock"])
            #expect(run.exit == .exited(0), "\(arguments): \(run)")
            #expect(run.stdout.contains("\"app\":\"garage\""), "\(run)")
        }
        // Where --app finds the socket, the banner says so rather than spelling out the path.
        let banner = sandbox.daemon?.stdout ?? ""
        #expect(banner.contains("  watch: mobiusctl --app garage watch\n"), "\(banner)")
        // An app nobody runs (a name no daemon of this host has, since the test cannot own /tmp/mobiusd-UID).
        let shed = "shed-\(UInt64.random(in: 0...UInt64.max))"
        let other = try sandbox.ctl(["--app", shed, "ping"])
        let runtime = sandbox.environment["XDG_RUNTIME_DIR"]!
        #expect(other.exit == .exited(3), "\(other)")
        #expect(
            other.stderr.hasPrefix("mobiusctl: cannot connect to \(runtime)/mobiusd/\(shed).sock: No such file"),
            "\(other)")
        #expect(other.stderr.contains("hint: looked for app \"\(shed)\" where mobiusd puts its socket"), "\(other)")
    }

    @Test func missingSocketNamesThePathAndTheReason() throws {
        let sandbox = CtlSandbox()
        let run = try sandbox.ctlAtSocket("status")
        #expect(run.exit == .exited(3))
        #expect(run.stdout.isEmpty)
        #expect(
            run.stderr
                == "mobiusctl: cannot connect to \(sandbox.socketPath): No such file or directory — is mobiusd running?\n"
                + "mobiusctl: hint: the path was given with --socket\n"
        )
        let fallback = try sandbox.ctl(["status"])
        let expected = sandbox.environment["XDG_RUNTIME_DIR"]! + "/mobiusd/counter.sock"
        #expect(fallback.stderr.contains("cannot connect to \(expected): No such file or directory"), "\(fallback)")
    }

    @Test func missingSocketHintSaysHowThePathWasChosen() throws {
        let sandbox = CtlSandbox()
        let fromEnvironment = try sandbox.ctl(["ping"], environment: ["MOBIUSD_SOCKET": sandbox.socketPath])
        #expect(fromEnvironment.exit == .exited(3))
        #expect(
            fromEnvironment.stderr.hasSuffix(
                "\nmobiusctl: hint: the path comes from MOBIUSD_SOCKET; --socket PATH overrides it\n"),
            "\(fromEnvironment)")
        let fromDefault = try sandbox.ctl(["ping"])
        #expect(fromDefault.exit == .exited(3))
        let lines = fromDefault.stderr.split(separator: "\n")
        #expect(lines.count == 2, "one line of error, one of hint: \(fromDefault)")
        #expect(
            lines.last?.hasPrefix("mobiusctl: hint: the path is the counter's default under $XDG_RUNTIME_DIR")
                == true,
            "\(fromDefault)")
        // A refused connection (a stale socket file) gets the hint too; an overlong path, which no daemon can
        // listen on, does not.
        try sandbox.makeStaleSocket(at: sandbox.socketPath)
        let stale = try sandbox.ctlAtSocket("ping")
        #expect(stale.stderr.hasSuffix("mobiusctl: hint: the path was given with --socket\n"), "\(stale)")
        let overlong = try sandbox.ctl(["ping", "--socket", "/tmp/" + String(repeating: "x", count: 120)])
        #expect(!overlong.stderr.contains("hint"), "\(overlong)")
    }

    @Test func staleSocketIsConnectionRefused() throws {
        let sandbox = CtlSandbox()
        try sandbox.makeStaleSocket(at: sandbox.socketPath)
        let run = try sandbox.ctlAtSocket("ping")
        #expect(run.exit == .exited(3))
        #expect(
            run.stderr
                == "mobiusctl: cannot connect to \(sandbox.socketPath): Connection refused — is mobiusd running?\n"
                + "mobiusctl: hint: the path was given with --socket\n")
    }

    @Test func overlongSocketPathIsExplained() throws {
        let sandbox = CtlSandbox()
        let path = "/tmp/" + String(repeating: "x", count: 120)
        let run = try sandbox.ctl(["ping", "--socket", path])
        #expect(run.exit == .exited(3))
        #expect(run.stderr.contains("longer than a Unix socket path may be"), "\(run)")
    }
}
