import Foundation
import MobiusJSON
import MobiusSystem
import Testing

/// Examples/Thermostat end to end: mobiusd runs the app whose update is a Python plugin (the SDK's updateBatch),
/// and its effects go to the file plugin (the status file) and the shell logger plugin (a syslog socket the test
/// owns), all real processes.
@Suite(.serialized, .timeLimit(.scaled(minutes: 2)))
struct ThermostatExampleTests {
    static let example: String = {
        URL(fileURLWithPath: #filePath).deletingLastPathComponent().deletingLastPathComponent()
            .deletingLastPathComponent().appendingPathComponent("Examples/Thermostat").path
    }()

    /// The example's own config, with its status directory and syslog socket moved into the test's scratch.
    static func config(statusDirectory: String, syslog: String) throws -> String {
        let text = try FileSystem.read(example + "/thermostat.json")
        guard case .object(var config) = try JSONValue(parsing: text), case .object(var plugins)? = config["plugins"]
        else { throw DaemonTestError("thermostat.json is not the expected shape") }
        for (name, entry) in plugins {
            guard case .object(var plugin) = entry, let exec = plugin["exec"]?.arrayValue else { continue }
            // The config's relative paths are relative to the example's directory; the test's copy lives elsewhere.
            plugin["exec"] = .array(exec.map { .string(FileSystem.resolve($0.stringValue ?? "", against: example)) })
            if name == "status" { plugin["options"] = ["directory": .string(statusDirectory)] }
            if name == "log" { plugin["env"] = ["LOGGER_SOCKET": .string(syslog)] }
            plugins[name] = .object(plugin)
        }
        config["plugins"] = .object(plugins)
        return String(decoding: JSONValue.object(config).encoded(), as: UTF8.self)
    }

    @Test func readingsDriveTheModelTheStatusFileAndSyslog() throws {
        let scratch = DaemonScratch()
        let syslog = try NotifyListener(scratch: scratch, name: "syslog.sock")
        let status = scratch.file("status")
        try FileSystem.makeDirectories(status)
        let daemon = try DaemonProcess.start(config: try Self.config(statusDirectory: status, syslog: syslog.path))
        let client = try daemon.connect()
        #expect(try client.request("model").model == ["target": 20, "celsius": nil, "heating": false])

        try client.send(lines: [#"{"type":"reading","celsius":18.5}"#, #"{"type":"reading","celsius":"warm"}"#])
        #expect(try client.readReply().isAck)
        let rejected = try client.readReply()
        #expect(rejected.errorCode == "InvalidEvent")
        #expect(try client.request("model").model == ["target": 20, "celsius": 18.5, "heating": true])
        try DaemonTraffic.eventually("the status file says on") {
            (try? FileSystem.read(status + "/thermostat-heating")) == Array("on".utf8)
        }
        try syslog.next("the heating-on record") { $0.text.contains(#""message":"heating on""#) }

        #expect(try client.request(#"{"type":"setTarget","celsius":17}"#).isAck)
        try DaemonTraffic.eventually("the status file says off") {
            (try? FileSystem.read(status + "/thermostat-heating")) == Array("off".utf8)
        }
        try syslog.next("the heating-off record") { $0.text.contains(#""message":"heating off""#) }
        // The syslog record can arrive before the plugin's reply has been counted.
        try DaemonTraffic.eventually("both effects of both switches are counted as handled") {
            let plugins = try client.request("status").value["plugins"]
            return plugins?["status"]?["handled"] == 2 && plugins?["log"]?["handled"] == 2
        }
        #expect(try client.request("status").value["plugins"]?["status"]?["failed"] == 0)
        try daemon.terminate()
    }
}
