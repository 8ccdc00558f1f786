import MobiusJSON
import MobiusSystem
import Testing

/// `reload` and `plugin {"restart":NAME}` on the control socket: each is answered once its outcome is known, in
/// order with the connection's other requests.
@Suite(.serialized, .timeLimit(.minutes(2)))
struct ControlCommandTests {
    @Test func reloadAnswersWithTheOutcome() throws {
        let daemon = try DaemonProcess.start(config: #"{"app":"reloads","update":{"builtin":"counter"}}"#)
        let client = try daemon.connect()
        // Pipelined: the reload's answer comes before the ping's, and the event before it is applied first.
        try client.send(lines: [#"{"type":"increment"}"#, "reload", "ping"])
        #expect(try client.readReply().seq == 1)
        let applied = try client.readReply(timeout: .seconds(10))
        #expect(applied.ok == true && applied["reloaded"] != nil && applied["needRestart"] == [], "\(applied)")
        #expect(try client.readReply().seq == 1, "the ping comes after the reload's answer")

        daemon.scratch.write("mobiusd.json", #"{"app":"reloads","update":{"builtin":"counter"},"socket":{"mode":7}}"#)
        let refused = try client.request("reload", timeout: .seconds(10))
        #expect(refused.ok == false && refused.errorCode == "InvalidArgument", "\(refused)")
        #expect(refused.value["error"]?["key"] == "socket.mode", "the refused key is named: \(refused)")
        #expect(refused.errorMessage?.contains("running configuration is kept") == true, "\(refused)")

        daemon.scratch.write("mobiusd.json", #"{"app":"renamed","update":{"builtin":"counter"}}"#)
        let restartOnly = try client.request("reload", timeout: .seconds(10))
        #expect(restartOnly.ok == true && restartOnly["needRestart"] == ["app"], "\(restartOnly)")
        #expect(try client.request("reload {}").errorCode == "InvalidArgument")
        try daemon.terminate()
    }

    /// A plugin that has used up its restart budget is `failed` until someone acts: `plugin {"restart":NAME}`
    /// starts it again without restarting the daemon.
    @Test func aFailedPluginRestartsOnRequest() throws {
        let scratch = DaemonScratch()
        let broken = scratch.write("broken", "")
        let wrapper = scratch.write(
            "fx.sh",
            """
            #!/bin/sh
            if [ -e '\(broken)' ]; then echo '<3>not configured yet' >&2; exit 1; fi
            exec '\(PluginFixtures.behave)'
            """)
        try FileSystem.setMode(wrapper, 0o755)
        let fx: JSONValue = [
            "exec": [.string(wrapper)],
            "restart": ["initialDelay": 0.05, "maxDelay": 0.05, "burst": 1, "interval": 60],
        ]
        let config = scratch.write(
            "mobiusd.json",
            String(
                decoding: JSONValue.object([
                    "app": "restarts", "update": ["builtin": "counter"], "plugins": ["fx": fx],
                ]).encoded(), as: UTF8.self))
        let daemon = try DaemonProcess(
            scratch: scratch, arguments: ["--config", config, "--socket", scratch.file("x.sock")],
            socketPath: scratch.file("x.sock"))
        let client = try daemon.connect()
        try DaemonTraffic.eventually("fx is failed") {
            try client.request("status")["plugins"]?["fx"]?["state"] == "failed"
        }
        try FileSystem.remove(broken)
        let restarted = try client.request(#"plugin {"restart":"fx"}"#, timeout: .seconds(10))
        #expect(restarted.ok == true && restarted["plugin"] == "fx", "\(restarted)")
        try DaemonTraffic.eventually("fx runs again") {
            try client.request("status")["plugins"]?["fx"]?["state"] == "running"
        }
        let unknown = try client.request(#"plugin {"restart":"nope"}"#)
        #expect(unknown.errorCode == "InvalidArgument" && unknown.errorMessage?.contains("nope") == true)
        #expect(try client.request(#"plugin {"stop":"fx"}"#).errorCode == "InvalidArgument")
        try daemon.terminate()
    }
}
