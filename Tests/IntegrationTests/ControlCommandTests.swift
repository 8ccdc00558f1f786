import MobiusJSON
import MobiusSystem
import Testing

/// `reload` and `plugin {"restart":NAME}` on the control socket: each is answered once its outcome is known, in
/// order with the connection's other requests.
@Suite(.serialized, .timeLimit(.scaled(minutes: 2)))
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
        let wrapper = try PluginFixtures.breakablePlugin(in: scratch, named: "fx.sh", stderr: "not configured yet")
        let fx: JSONValue = [
            "exec": [.string(wrapper)],
            "restart": ["initialDelay": 0.05, "maxDelay": 0.05, "burst": 1, "interval": 60],
        ]
        let config = PluginFixtures.writeConfig(
            ["app": "restarts", "update": ["builtin": "counter"], "plugins": ["fx": fx]], in: scratch)
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

    /// A running plugin that ignores SIGTERM is still restarted: SIGKILL follows 2 s later.
    @Test func aRunningPluginThatIgnoresSIGTERMIsRestartedAnyway() throws {
        let fx = PluginFixtures.behave(options: ["mode": "ignore-term"], ["restart": PluginFixtures.quickRestart])
        let config: JSONValue = ["app": "restarts", "update": ["builtin": "counter"], "plugins": ["fx": fx]]
        let daemon = try DaemonProcess.start(config: String(decoding: config.encoded(), as: UTF8.self))
        let client = try daemon.connect()
        try DaemonTraffic.eventually("fx runs") {
            try client.request("status")["plugins"]?["fx"]?["state"] == "running"
        }
        let before = try client.request("status")["plugins"]?["fx"]?["pid"]
        #expect(try client.request(#"plugin {"restart":"fx"}"#).ok == true)
        try DaemonTraffic.eventually("fx runs as a new process", timeout: .seconds(10)) {
            let entry = try client.request("status")["plugins"]?["fx"]
            return entry?["state"] == "running" && entry?["pid"] != before
        }
        #expect(daemon.standardError.contains("ignored SIGTERM for 2 s on its restart; sending SIGKILL"))
        try daemon.terminate(timeout: .seconds(15))
    }

    /// A writer that pipelines hundreds of `reload`s without reading, and a `plugin` argument nested far past the
    /// parser's depth: the reloads are carried out one at a time and answered in order, other connections are
    /// answered meanwhile, and the deep argument is an `InvalidArgument`, not a crash.
    @Test func reloadFloodsAndDeepArgumentsHaveAnOutcome() throws {
        let daemon = try DaemonProcess.start(config: #"{"app":"reloads","update":{"builtin":"counter"}}"#)
        let flooder = try daemon.connect()
        try flooder.send(lines: Array(repeating: "reload", count: 300))
        let other = try daemon.connect()
        #expect(try other.request("ping", timeout: .seconds(10)).ok == true, "another client is answered")
        let deep = String(repeating: "[", count: 100_000) + String(repeating: "]", count: 100_000)
        let nested = try other.request("plugin {\"restart\":\(deep)}", timeout: .seconds(10))
        #expect(nested.errorCode == "InvalidArgument", "\(nested)")
        for index in 0..<300 {
            let reply = try flooder.readReply(timeout: .seconds(30))
            #expect(reply.ok == true && reply["reloaded"] != nil, "reload \(index): \(reply)")
        }
        #expect(daemon.isRunning)
        try daemon.terminate()
    }
}
