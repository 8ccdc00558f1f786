import MobiusJSON
import MobiusSystem
import Testing

/// docs/protocol.md 2.1: what a plugin inherits from the daemon. Only its three pipes as descriptors 0-2, no blocked
/// signal, and an environment of exactly the documented variables, as the plugin itself sees them
/// (Tests/Fixtures/Plugins/probe.py lists /proc/self/fd and reads /proc/self/status and /proc/self/environ).
@Suite(.serialized, .timeLimit(.scaled(minutes: 2)))
struct PluginIsolationTests {
    static func config(probe: [String: JSONValue] = [:]) -> String {
        var entry: [String: JSONValue] = ["exec": [.string(PluginFixtures.probe)]]
        for (key, value) in probe { entry[key] = value }
        return PluginFixtures.config(plugins: ["probe": .object(JSONObject(entry.sorted { $0.key < $1.key }))])
    }

    /// The probe is restarted while the daemon holds many descriptors of its own (clients, a subscriber, a `log`
    /// follower, the journal, the update plugin's pipes, its epoll and event descriptors): the new plugin still
    /// gets none of them.
    @Test func pluginGetsOnlyItsPipesAsDescriptors() throws {
        let daemon = try DaemonProcess.start(config: Self.config())
        var clients: [DaemonLineClient] = []
        for _ in 0..<8 { clients.append(try daemon.connect()) }
        #expect(try clients[0].request("subscribe").ok == true)
        #expect(try clients[1].request(#"log {"follow":true}"#).ok == true)
        #expect(try clients[2].request(PluginFixtures.emit(["type": "warm-up"])).isAck)
        let restarted = try clients[3].request(#"plugin {"restart":"probe"}"#)
        #expect(restarted.ok == true, "\(restarted)")
        try DaemonTraffic.eventually("the restarted probe runs") {
            try clients[3].request("status")["plugins"]?["probe"]?["state"] == "running"
        }
        let daemonDescriptors = (try? DirectoryListing.names(in: "/proc/\(daemon.pid)/fd"))?.count ?? 0
        #expect(daemonDescriptors > 20, "the daemon has descriptors it could leak: \(daemonDescriptors)")

        let report = try PluginFixtures.probeReport(daemon)
        #expect(report["fds"] == [0, 1, 2], "\(report)")
        #expect(report["stdio"] == ["pipe", "pipe", "pipe"], "\(report)")
        // The daemon's threads block the signals its signalfd reads; the plugin starts with none blocked.
        #expect(report["sigblk"] == ["0000000000000000"], "\(report)")
        withExtendedLifetime(clients) {}
        try daemon.terminate()
    }

    /// The daemon's environment holds variables of every kind a plugin must not see (systemd's, a secret, the
    /// state home); the plugin gets `PATH`, `HOME`, `LANG` and `TZ` (`LC_ALL` is unset), the config's `env` (which
    /// may replace one of those), and the four `MOBIUSD_` variables: nothing else.
    @Test func environmentIsExactlyTheDocumentedOne() throws {
        let scratch = DaemonScratch()
        let socket = scratch.file("x.sock")
        let environment = [
            "PATH": "/usr/bin:/bin", "HOME": "/var/empty-home", "LANG": "C.UTF-8", "TZ": "UTC",
            "SECRET_TOKEN": "must-not-leak", "NOTIFY_SOCKET": scratch.file("nobody-listens"),
            "DBUS_SESSION_BUS_ADDRESS": "unix:path=\(scratch.file("no-bus"))", "LD_BIND_NOW": "1",
            "XDG_RUNTIME_DIR": scratch.path,
        ]
        let config = Self.config(probe: ["env": ["EXTRA": "x=y", "TZ": "Europe/Oslo"]])
        let daemon = try DaemonProcess(
            scratch: scratch, arguments: ["--socket", socket, "--config", scratch.write("mobiusd.json", config)],
            socketPath: socket, environment: environment)
        let report = try PluginFixtures.probeReport(daemon)
        let expected: JSONValue = [
            "EXTRA=x=y", "HOME=/var/empty-home", "LANG=C.UTF-8", "MOBIUSD_APP=plugintest", "MOBIUSD_PLUGIN=1",
            "MOBIUSD_PLUGIN_NAME=probe", "MOBIUSD_PROTOCOL=1", "PATH=/usr/bin:/bin", "TZ=Europe/Oslo",
        ]
        #expect(report["environ"] == expected, "\(report)")
        try daemon.terminate()
    }
}
