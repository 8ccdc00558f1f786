import MobiusJSON
import MobiusSystem
import MobiusTestSupport
import Testing

@testable import MobiusDaemon

/// `PluginHost` through the `PluginPort` it is given at init, with plugins that are never started (no process):
/// routing by key, a failed effect reported as the plugin's `onError` event, the loop's room, push-back on the
/// edges, reload and stop.
@Suite struct PluginHostTests {
    /// The loop's side of the port, recording what the host hands it.
    private final class FakeLoop {
        var room = true
        var delivered: [(event: JSONValue, plugin: String)] = []
        var port: PluginPort {
            PluginPort(
                hasRoom: { [unowned self] in room }, whenRoom: { $0() },
                deliver: { [unowned self] event, runner in delivered.append((event, runner.name)) },
                stateChanged: { _ in })
        }
    }

    private static func spec(_ name: String, onError: JSONValue? = nil) -> PluginSpec {
        var config = DaemonConfig.Plugin(exec: ["/bin/true"])
        config.onError = onError
        return PluginSpec(
            name: name, program: "/bin/true", arguments: ["/bin/true"], environment: [], credentials: nil,
            config: config)
    }

    private static func host(
        _ specs: [PluginSpec], update: String? = nil, loop: FakeLoop,
        backpressure: EdgeBackpressure = EdgeBackpressure()
    ) throws -> PluginHost {
        PluginHost(
            specs: specs, updatePlugin: update, backpressure: backpressure, loop: loop.port, reactor: try Reactor(),
            log: DaemonLog(threshold: .error))
    }

    @Test func effectsGoToThePluginThatClaimsTheirKey() throws {
        let loop = FakeLoop()
        let host = try Self.host([Self.spec("a"), Self.spec("b")], loop: loop)
        let a = try #require(host.runner(named: "a"))
        let b = try #require(host.runner(named: "b"))
        #expect(!host.route(.object(["type": "x"]), key: "x"))
        #expect(host.plugin(a, announces: ["x", "y"]) == nil)
        #expect(host.route(.object(["type": "x"]), key: "x"))
        #expect(host.plugin(b, announces: ["y"]) == "plugins a and b both claim effect key \"y\"")
        // A restarted plugin that announces fewer keys gives up the others.
        #expect(host.plugin(a, announces: ["y"]) == nil)
        #expect(!host.route(.object(["type": "x"]), key: "x"))
        #expect(host.plugin(b, announces: ["x"]) == nil)
        #expect(host.route(.object(["type": "x"]), key: "x"))
    }

    @Test func anEffectForAPluginThatIsNotRunningFailsUnavailableAsItsOnErrorEvent() throws {
        let loop = FakeLoop()
        let onError: JSONValue = .object(["type": "failed"])
        let host = try Self.host([Self.spec("a", onError: onError), Self.spec("quiet")], loop: loop)
        let a = try #require(host.runner(named: "a"))
        let quiet = try #require(host.runner(named: "quiet"))
        _ = host.plugin(a, announces: ["work"])
        _ = host.plugin(quiet, announces: ["hush"])
        let effect: JSONValue = .object(["type": "work"])
        #expect(host.route(effect, key: "work"))
        #expect(host.route(.object(["type": "hush"]), key: "hush"))
        // Only the plugin with an onError template reports it to the loop.
        #expect(loop.delivered.count == 1)
        let event = try #require(loop.delivered.first)
        #expect(event.plugin == "a")
        #expect(event.event["type"] == "failed")
        #expect(event.event["effect"] == effect)
        #expect(event.event["error"]?["code"] == "Unavailable")
        #expect(event.event["error"]?["message"] == "plugin a is stopped")
        #expect(host.statusJSON["a"]?["failed"] == 1)
        #expect(host.statusJSON["a"]?["state"] == "stopped")
    }

    @Test func onlyTheUpdatePluginIsReadWhileTheLoopHasNoRoom() throws {
        let loop = FakeLoop()
        let host = try Self.host([Self.spec("update"), Self.spec("effects")], update: "update", loop: loop)
        let update = try #require(host.runner(named: "update"))
        let effects = try #require(host.runner(named: "effects"))
        #expect(host.mayDeliverEvents(from: effects))
        loop.room = false
        #expect(!host.mayDeliverEvents(from: effects))
        #expect(host.mayDeliverEvents(from: update))
    }

    @Test func aPluginThatPushesBackHoldsTheEdgesUntilItLetsGo() throws {
        let loop = FakeLoop()
        let backpressure = EdgeBackpressure()
        let host = try Self.host([Self.spec("a"), Self.spec("b")], loop: loop, backpressure: backpressure)
        let a = try #require(host.runner(named: "a"))
        let b = try #require(host.runner(named: "b"))
        host.plugin(a, pushesBack: true)
        host.plugin(b, pushesBack: true)
        #expect(backpressure.holderCount == 2)
        host.plugin(a, pushesBack: false)
        #expect(backpressure.isHolding)
        host.plugin(b, pushesBack: false)
        #expect(!backpressure.isHolding)
    }

    @Test func reloadAndStopEndPluginsThatNeverStarted() throws {
        let loop = FakeLoop()
        let host = try Self.host([Self.spec("a"), Self.spec("b")], loop: loop)
        let a = try #require(host.runner(named: "a"))
        _ = host.plugin(a, announces: ["x"])
        #expect(host.reload([Self.spec("a"), Self.spec("b")]) == nil)
        #expect(host.reload([Self.spec("b")]) == "a removed")
        #expect(host.runner(named: "a") == nil)
        #expect(!host.route(.object(["type": "x"]), key: "x"))
        var stopped = false
        host.stop { stopped = true }
        #expect(stopped)
        #expect(host.statusJSON["b"]?["state"] == "stopped")
    }

    @Test func anEditedScriptCountsAsChangedFiles() throws {
        let directory = try TemporaryDirectory(prefix: "plugin-files")
        defer { directory.remove() }
        let script = directory.file("update.py")
        let file = try FileDescriptor.openFile(script, .readWriteCreating(mode: 0o600))
        defer { file.close() }
        try file.writeAll(Array("one\n".utf8), at: 0)
        let spec = PluginSpec(
            name: "update", program: "/bin/true", arguments: ["/bin/true", "-u", script], environment: [],
            credentials: nil, config: DaemonConfig.Plugin(exec: ["/bin/true"]))
        #expect(spec.files == ["/bin/true", "/bin/true", script])
        let started = spec.files.map(FileSystem.version)
        #expect(!spec.filesChanged(since: started))
        try file.writeAll(Array("two, longer\n".utf8), at: 0)
        #expect(spec.filesChanged(since: started))
    }
}
