import Testing

/// Help, version and usage errors of the built binary (no daemon needed).
@Suite(.serialized, .timeLimit(.scaled(minutes: 2)))
struct MobiusctlUsageTests {
    static let commands = [
        "send", "model", "watch", "status", "monitor", "log", "hello", "ping", "reload", "plugin", "metrics", "top",
        "help",
    ]

    @Test func toolHelpListsEveryCommandAndTheExitStatuses() throws {
        let sandbox = CtlSandbox()
        let run = try sandbox.ctl(["--help"])
        #expect(run.exit == .exited(0))
        #expect(run.stdout.hasPrefix("Usage: mobiusctl [--socket PATH | --app NAME]"))
        for command in Self.commands { #expect(run.stdout.contains("\n  \(command)"), "\(command)") }
        #expect(run.stdout.contains("MOBIUSD_SOCKET"))
        #expect(run.stdout.contains("Exit status: 0 ok; 1"))
        #expect(try sandbox.ctl(["help"]).stdout == run.stdout)
        #expect(try sandbox.ctl(["-h"]).stdout == run.stdout)
    }

    @Test(arguments: commands)
    func eachCommandHasItsOwnHelp(command: String) throws {
        let sandbox = CtlSandbox()
        let run = try sandbox.ctl([command, "--help"])
        #expect(run.exit == .exited(0), "\(run)")
        #expect(run.stdout.hasPrefix("Usage: mobiusctl"))
        #expect(run.stdout.components(separatedBy: "\n")[0].contains(" \(command)"), "\(run)")
        #expect(run.stderr.isEmpty)
        #expect(try sandbox.ctl(["help", command]).stdout == run.stdout)
    }

    @Test func version() throws {
        let run = try CtlSandbox().ctl(["--version"])
        #expect(run.exit == .exited(0))
        #expect(run.stdout == "mobiusctl 0.1.0\n")
    }

    @Test(arguments: [
        ([], "mobiusctl: no command given"),
        (["frobnicate"], "mobiusctl: unknown command \"frobnicate\""),
        (["send"], "mobiusctl: send needs a JSON event"),
        (["status", "--bogus"], "mobiusctl: unknown option --bogus"),
        (["model", "--since", "3"], "mobiusctl: model does not take --since"),
        (["log", "--limit", "many"], "mobiusctl: --limit needs a whole number ≥ 0, not \"many\""),
        (["watch", "--path", "nope"], "mobiusctl: --path \"nope\" is not a JSON Pointer"),
        (["ping", "--socket"], "mobiusctl: --socket needs a value"),
        (["frobnicate", "--help"], "mobiusctl: unknown command \"frobnicate\""),
        (["plugin", "restart"], "mobiusctl: plugin restart needs a plugin name"),
        (["reload", "now"], "mobiusctl: reload takes no argument \"now\""),
    ])
    func usageErrorsExitTwoWithAUsageLine(arguments: [String], message: String) throws {
        let run = try CtlSandbox().ctl(arguments)
        #expect(run.exit == .exited(2), "\(run)")
        #expect(run.stdout.isEmpty)
        let lines = run.stderr.split(separator: "\n").map(String.init)
        #expect(lines.count == 2, "\(run)")
        #expect(lines.first?.hasPrefix(message) == true, "\(run)")
        #expect(lines.last?.hasPrefix("usage: mobiusctl ") == true, "\(run)")
    }
}
