import Foundation
import MobiusJSON
import MobiusSystem
import MobiusTestSupport
import Testing

/// `mobiusctl reload` and `mobiusctl plugin restart NAME` against a real mobiusd: the exit status is the outcome
/// (what `ExecReload=` in the units hands to `systemctl reload`), the summary or the reason is printed.
@Suite(.serialized, .timeLimit(.scaled(minutes: 2)))
struct MobiusctlControlTests {
    static let counter = #"{"app":"counter","update":{"builtin":"counter"}}"#

    /// A sandbox whose daemon runs `config.json`, written first with `config`.
    static func start(config: String) throws -> (CtlSandbox, String) {
        let sandbox = CtlSandbox()
        let path = sandbox.directory + "/config.json"
        try config.write(toFile: path, atomically: true, encoding: .utf8)
        try sandbox.startDaemon(arguments: ["--config", path, "--ephemeral"])
        return (sandbox, path)
    }

    @Test func anAcceptedReloadExitsZeroWithWhatChanged() throws {
        let (sandbox, path) = try Self.start(config: Self.counter)
        let same = try sandbox.ctlAtSocket("--human", "reload")
        #expect(same.exit == .exited(0), "\(same)")
        #expect(same.lines.first?.hasPrefix("reloaded") == true, "\(same)")
        #expect(same.stderr.isEmpty, "\(same)")

        try #"{"app":"garage","update":{"builtin":"counter"}}"#.write(toFile: path, atomically: true, encoding: .utf8)
        let renamed = try sandbox.ctlAtSocket("--human", "reload")
        #expect(renamed.exit == .exited(0), "\(renamed)")
        #expect(renamed.lines.contains("needs a restart to take effect: app"), "\(renamed)")

        // JSON mode passes the daemon's answer through, for scripts.
        let json = try sandbox.ctlAtSocket("--json", "reload")
        #expect(json.exit == .exited(0), "\(json)")
        let answer = try JSONValue(parsing: try #require(json.lines.first))
        #expect(answer["ok"] == true && answer["needRestart"] == ["app"], "\(json)")
    }

    @Test func aRefusedReloadExitsOneWithTheKeyOnStderr() throws {
        let (sandbox, path) = try Self.start(config: Self.counter)
        try #"{"app":"counter","update":{"builtin":"counter"},"socket":{"mode":7}}"#
            .write(toFile: path, atomically: true, encoding: .utf8)
        let refused = try sandbox.ctlAtSocket("--human", "reload")
        #expect(refused.exit == .exited(1), "\(refused)")
        #expect(refused.stdout.isEmpty, "\(refused)")
        #expect(refused.stderr.hasPrefix("mobiusctl: reload refused, the running configuration is kept: "))
        #expect(refused.stderr.contains("socket.mode: "), "the key: \(refused)")
        #expect(refused.stderr.hasSuffix("(InvalidArgument)\n"), "\(refused)")
        let json = try sandbox.ctlAtSocket("--json", "reload")
        #expect(json.exit == .exited(1), "\(json)")
        #expect(try JSONValue(parsing: try #require(json.lines.first))["error"]?["key"] == "socket.mode", "\(json)")
        // The daemon still runs the old configuration.
        #expect(try sandbox.ctlAtSocket("send", #"{"type":"increment"}"#).exit == .exited(0))
    }

    /// The user unit's `ExecReload=` as systemd runs it (`%t` the runtime directory, `%i` the instance), against a
    /// daemon on the unit's socket: what `systemctl --user reload` waits for and hands on.
    @Test func theUserUnitsExecReloadFailsWhenTheConfigIsRefused() throws {
        let words = try CtlSandbox.unitCommand("user/mobiusd@.service", "ExecReload")
        #expect(words.first == "/usr/local/bin/mobiusctl", "\(words)")
        let sandbox = CtlSandbox()
        let runtime = try #require(sandbox.environment["XDG_RUNTIME_DIR"])
        let arguments = words.dropFirst().map {
            $0.replacingOccurrences(of: "%t", with: runtime).replacingOccurrences(of: "%i", with: "garage")
        }
        let path = sandbox.directory + "/garage.json"
        try #"{"app":"garage","update":{"builtin":"counter"}}"#.write(toFile: path, atomically: true, encoding: .utf8)
        try sandbox.startDaemon(defaultSocket: true, arguments: ["--config", path, "--ephemeral"])
        let accepted = try sandbox.ctl(arguments)
        #expect(accepted.exit == .exited(0), "\(accepted)")
        #expect(accepted.stdout.hasPrefix("reloaded: "), "a summary for the journal: \(accepted)")
        try #"{"app":"garage","update":{"builtin":"counter"},"access":{"write":["nobody-here-at-all"]}}"#
            .write(toFile: path, atomically: true, encoding: .utf8)
        let refused = try sandbox.ctl(arguments)
        #expect(refused.exit == .exited(1), "\(refused)")
        #expect(refused.stderr.contains("access.write[0]"), "the key: \(refused)")
    }

    /// A daemon that never answers (here a socket nobody accepts on: the request sits in its backlog) does not hold
    /// `ExecReload=` forever: after 90 s, systemd's own limit, mobiusctl gives up with exit status 3.
    @Test func aReloadWithoutAnswerGivesUpAfterItsTimeout() throws {
        let sandbox = CtlSandbox()
        let mute = try UnixSocket.listen(path: sandbox.socketPath)
        defer { mute.close() }
        let started = ContinuousClock.now
        let child = try sandbox.spawnCtl(["--socket", sandbox.socketPath, "reload", "--timeout", "2"])
        let run = CtlRun(exit: try child.wait(timeout: .seconds(20)), stdout: child.stdout, stderr: child.stderr)
        let waited = ContinuousClock.now - started
        #expect(run.exit == .exited(3), "\(run)")
        #expect(run.stderr == "mobiusctl: \(sandbox.socketPath): no answer within 2 s; the reload may still finish\n")
        #expect(waited >= .seconds(1.9) && waited < TestTime.scaled(.seconds(20)), "\(waited)")
        for bad in ["0", "x", "86401", "-1", "0.5", "1e300", ""] {
            let refused = try sandbox.ctl(["--socket", sandbox.socketPath, "reload", "--timeout", bad])
            #expect(refused.exit == .exited(2), "--timeout \(bad): \(refused)")
        }
    }

    @Test func pluginRestartReportsTheStateOrExitsOneForAnUnknownPlugin() throws {
        let (sandbox, _) = try Self.start(config: PluginFixtures.config(plugins: ["worker": PluginFixtures.behave()]))
        let restarted = try sandbox.ctlAtSocket("--human", "plugin", "restart", "worker")
        #expect(restarted.exit == .exited(0), "\(restarted)")
        // The state right after the restart began: starting, or running once its handshake is done.
        #expect(
            ["plugin worker: starting\n", "plugin worker: running\n"].contains(restarted.stdout), "\(restarted)")
        let unknown = try sandbox.ctlAtSocket("--human", "plugin", "restart", "nope")
        #expect(unknown.exit == .exited(1), "\(unknown)")
        #expect(unknown.stderr == "mobiusctl: no plugin named \"nope\" (InvalidArgument)\n", "\(unknown)")
    }
}
