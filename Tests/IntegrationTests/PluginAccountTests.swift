import MobiusJSON
import MobiusSystem
import Testing

/// docs/protocol.md 2.1: `user` and `group` when the daemon runs as root: groups, then gid, then uid, and that user's
/// HOME.
@Suite(.serialized, .timeLimit(.scaled(minutes: 1)), .enabled(if: SystemProcess.userID == 0, "needs root"))
struct PluginAccountTests {
    @Test func pluginRunsAsTheConfiguredUserAndGroup() throws {
        let whoami: JSONValue = [
            "exec": [.string("\(PluginFixtures.directory)/whoami.sh")], "user": "nobody", "group": "nogroup",
        ]
        let daemon = try DaemonProcess.start(config: PluginFixtures.config(plugins: ["whoami": whoami]))
        let client = try daemon.connect()
        #expect(try client.request(PluginFixtures.emit(["type": "whoami"])).isAck)
        try DaemonTraffic.eventually("the whoami event arrives") {
            (try client.request("model").model?["seen"]?.arrayValue ?? []).contains { $0["type"] == "whoami" }
        }
        let event = try client.request("model").model?["seen"]?.arrayValue?.first { $0["type"] == "whoami" }
        let nobody = UserAccount.lookUp("nobody")
        #expect(event?["uid"]?.stringValue == nobody.map { "\($0.uid)" }, "\(String(describing: event))")
        #expect(event?["gid"]?.stringValue == UserDatabase.groupID(named: "nogroup").map { "\($0)" })
        #expect(event?["groups"]?.stringValue?.split(separator: " ").contains("0") == false, "root's groups dropped")
        #expect(event?["home"]?.stringValue == nobody?.home)
        try daemon.terminate()
    }
}
