import MobiusJSON
import MobiusSystem
import MobiusTestSupport
import Testing

/// A plugin whose stdin is gone (closed, or the plugin exited before the daemon wrote to it): the daemon's next
/// write fails with EPIPE. That is the plugin's end, never the daemon's.
@Suite(.serialized, .timeLimit(.scaled(minutes: 2)))
struct PluginBrokenPipeTests {
    /// The plugin reads `initialize`, closes its stdin, then answers: the daemon's `initialized` and every request
    /// after it meet a closed pipe. The daemon keeps running and answering, ends the plugin and restarts it.
    @Test func aWriteToAClosedStdinDoesNotBringTheDaemonDown() throws {
        let scratch = DaemonScratch()
        let plugin = scratch.write(
            "closes-stdin.sh",
            """
            #!/bin/sh
            read -r request
            exec 0<&-
            echo '{"jsonrpc":"2.0","id":0,"result":{"protocol":1,"name":"closer","version":"1","effects":["job"]}}'
            sleep 2
            """)
        try FileSystem.setMode(plugin, 0o755)
        let entry: JSONValue = ["exec": [.string(plugin)], "restart": PluginFixtures.quickRestart]
        let config: JSONValue = ["app": "pipes", "update": ["builtin": "counter"], "plugins": ["closer": entry]]
        let daemon = try DaemonProcess.start(config: String(decoding: config.encoded(), as: UTF8.self))
        let client = try daemon.connect()
        for _ in 0..<20 {
            #expect(try client.request("ping").ok == true)
            try SystemClock.sleep(nanoseconds: 50_000_000)
        }
        #expect(daemon.isRunning, "the daemon survived: \(daemon.standardError.suffix(2000))")
        // The plugin cannot be reached any more: it is ended and restarted, not left `running`.
        #expect(daemon.standardError.contains("plugin closer closed its stdin but is still running"))
        try DaemonTraffic.eventually("the plugin is restarted") {
            (try client.request("status")["plugins"]?["closer"]?["restarts"]?.int64Value ?? 0) >= 1
        }
        try daemon.terminate()
    }
}
