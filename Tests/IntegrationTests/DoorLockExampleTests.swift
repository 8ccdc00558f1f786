import Foundation
import MobiusJSON
import MobiusSystem
import Testing

/// Examples/DoorLock, the door lock of docs/apps.md in both kinds: mobiusd with the Python update plugin (a JSON
/// app) and the typed Swift `door-lock` binary over `Codable` enums. A client sends both the same `type`-tagged
/// events and gets the same answers, the same models and the same effects.
@Suite(.serialized, .timeLimit(.scaled(minutes: 2)))
struct DoorLockExampleTests {
    static let example: String = {
        URL(fileURLWithPath: #filePath).deletingLastPathComponent().deletingLastPathComponent()
            .deletingLastPathComponent().appendingPathComponent("Examples/DoorLock").path
    }()

    /// The example's config with the plugin's path made absolute (the test's copy lives in its scratch).
    static func pluginAppConfig() throws -> String {
        guard case .object(var config) = try JSONValue(parsing: try FileSystem.read(example + "/door-lock.json")),
            case .object(var plugins)? = config["plugins"], case .object(var door)? = plugins["door"]
        else { throw DaemonTestError("door-lock.json is not the expected shape") }
        door["exec"] = [.string(example + "/update.py")]
        plugins["door"] = .object(door)
        config["plugins"] = .object(plugins)
        return String(decoding: JSONValue.object(config).encoded(), as: UTF8.self)
    }

    static func typedApp() throws -> DaemonProcess {
        let scratch = DaemonScratch()
        return try DaemonProcess(
            scratch: scratch, arguments: ["--socket", scratch.file("x.sock")], socketPath: scratch.file("x.sock"),
            name: "door-lock", program: DaemonSpawn.fixture("door-lock"))
    }

    /// What a client sees of one event: the answer (seq or error code) and the model after it.
    struct Step: Equatable, CustomStringConvertible {
        let answer: String
        let model: JSONValue?
        var description: String { "\(answer) \(model.map { String(decoding: $0.encoded(), as: UTF8.self) } ?? "-")" }
    }

    static let events = [
        #"{"type":"unlock","code":"0000"}"#, #"{"type":"lock"}"#, #"{"type":"unlock","code":"1111"}"#,
        #"{"type":"unlock","code":"2222"}"#, #"{"type":"unlock","code":"1234"}"#, #"{"type":"unlock","code":"1234"}"#,
        #"{"type":"lock"}"#, #"{"type":"jump"}"#, #"{"type":"unlock","code":1234}"#, #"{"type":"unlock"}"#,
        #"{"unlock":{"code":"1234"}}"#,
    ]

    /// Sends `events` one by one, reading the model after each, and returns the steps and the effects traced.
    static func converse(_ daemon: DaemonProcess) throws -> (steps: [Step], effects: [JSONValue]) {
        let monitor = try daemon.connect()
        #expect(try monitor.request("monitor").ok == true)
        let client = try daemon.connect()
        var steps: [Step] = []
        for event in events {
            let reply = try client.request(event)
            let answer = reply.errorCode ?? reply.seq.map { "seq \($0)" } ?? "\(reply)"
            steps.append(Step(answer: answer, model: try client.request("model").model))
        }
        try monitor.send("ping")
        var effects: [JSONValue] = []
        while true {
            let item = try monitor.readReply()
            if item.ok == true { break }
            if item["trace"] == "effect", let effect = item["effect"] { effects.append(effect) }
        }
        try daemon.terminate()
        return (steps, effects)
    }

    @Test func theTypedAppTakesAndGivesWhatThePluginAppDoes() throws {
        let plugin = try Self.converse(try DaemonProcess.start(config: try Self.pluginAppConfig()))
        let typed = try Self.converse(try Self.typedApp())

        let locked: JSONValue = ["locked": true, "failedAttempts": 0]
        #expect(plugin.steps.first == Step(answer: "seq 1", model: ["locked": true, "failedAttempts": 1]))
        #expect(plugin.steps[4] == Step(answer: "seq 5", model: ["locked": false, "failedAttempts": 0]))
        #expect(plugin.steps[6] == Step(answer: "seq 7", model: locked))
        #expect(plugin.steps.suffix(4).map(\.answer) == Array(repeating: "InvalidEvent", count: 4), "\(plugin.steps)")
        #expect(
            plugin.effects == [
                ["type": "alarm", "failedAttempts": 3], ["type": "bolt", "open": true],
                ["type": "bolt", "open": false],
            ])

        #expect(typed.steps == plugin.steps)
        #expect(typed.effects == plugin.effects)
    }

    @Test func appsMdShowsTheExamplesCode() throws {
        let root = URL(fileURLWithPath: Self.example).deletingLastPathComponent().deletingLastPathComponent().path
        let page = try String(contentsOfFile: root + "/docs/apps.md", encoding: .utf8)
        let python = try String(contentsOfFile: Self.example + "/update.py", encoding: .utf8)
        let swift = try String(contentsOfFile: Self.example + "/Sources/door-lock/DoorLock.swift", encoding: .utf8)
        let update = try #require(python.range(of: "@plugin.update"))
        let main = try #require(python.range(of: "\n\n\nif __name__"))
        #expect(page.contains("```python\n" + python[update.lowerBound..<main.lowerBound] + "\n```"))
        let types = try #require(swift.range(of: "/// What the daemon keeps"))
        #expect(page.contains("```swift\n" + swift[types.lowerBound...]))
    }

    @Test func theTypedAppNamesWhatIsWrongWithAnEvent() throws {
        let daemon = try Self.typedApp()
        let client = try daemon.connect()
        for (event, message) in [
            (#"{"type":"jump"}"#, #"type: no case is named "jump""#),
            (#"{"code":"1234"}"#, #"missing field "type""#),
            (#"{"type":"unlock","code":1234}"#, "unlock.code: expected a string, found a number"),
            (#"{"unlock":{"code":"1234"}}"#, #"missing field "type""#),
        ] {
            let reply = try client.request(event)
            #expect(reply.errorCode == "InvalidEvent", "\(event): \(reply)")
            #expect(reply.errorMessage == "the app rejected the event: " + message, "\(event): \(reply)")
        }
        #expect(try client.request("model").model == ["locked": true, "failedAttempts": 0])
        try daemon.terminate()
    }
}
