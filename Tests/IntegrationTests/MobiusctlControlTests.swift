import Foundation
import MobiusJSON
import Testing

/// `mobiusctl reload` and `mobiusctl plugin restart NAME` against a real mobiusd: the exit status is the outcome
/// (what `ExecReload=` in the units hands to `systemctl reload`), the summary or the reason is printed.
@Suite(.serialized, .timeLimit(.minutes(2)))
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
