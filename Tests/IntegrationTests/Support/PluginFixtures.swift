import Foundation
import MobiusJSON
import MobiusSystem

/// Configs for daemons that run the fixture plugins in Tests/Fixtures/Plugins (real processes: Python and shell).
enum PluginFixtures {
    /// Tests/Fixtures/Plugins, found from this file.
    static let directory: String = {
        URL(fileURLWithPath: #filePath).deletingLastPathComponent().deletingLastPathComponent()
            .deletingLastPathComponent().appendingPathComponent("Fixtures/Plugins").path
    }()

    static var behave: String { "\(directory)/behave.py" }
    static var tick: String { "\(directory)/tick.sh" }
    static var probe: String { "\(directory)/probe.py" }

    /// One plugin entry: `behave.py` with `options` and any other plugin keys (`timeout`, `restart`, `onError`…).
    static func behave(options: JSONValue = .object([:]), _ extra: [String: JSONValue] = [:]) -> JSONValue {
        var entry: [String: JSONValue] = ["exec": [.string(behave)], "options": options]
        for (key, value) in extra { entry[key] = value }
        return .object(JSONObject(entry.sorted { $0.key < $1.key }))
    }

    /// The fast restart policy tests use unless they test the policy itself.
    static let quickRestart: JSONValue = ["initialDelay": 0.05, "maxDelay": 0.2, "burst": 5, "interval": 60]

    /// A config whose update is `behave.py` in update mode (plugin `app`; `batch` chooses updateBatch) plus
    /// `plugins`, and `socket` as its socket settings when given; events `{"type":"effect","effect":E}` make the update
    /// emit `E`.
    static func config(
        plugins: [String: JSONValue], batch: Bool = true, updateOptions: [String: JSONValue] = [:],
        updateExtra: [String: JSONValue] = [:], socket: JSONValue? = nil
    ) -> String {
        var options: [String: JSONValue] = ["mode": "update", "batch": .bool(batch)]
        for (key, value) in updateOptions { options[key] = value }
        var all = plugins
        all["app"] = behave(options: .object(JSONObject(options.sorted { $0.key < $1.key })), updateExtra)
        var config: JSONObject = [
            "app": "plugintest",
            "update": ["plugin": "app"],
            "plugins": .object(JSONObject(all.sorted { $0.key < $1.key })),
        ]
        config["socket"] = socket
        return String(decoding: JSONValue.object(config).encoded(), as: UTF8.self)
    }

    /// The event that makes the update emit `effect`.
    static func emit(_ effect: JSONValue) -> String {
        String(decoding: JSONValue.object(["type": "effect", "effect": effect]).encoded(), as: UTF8.self)
    }

    /// What the plugin probe.py reports of itself (its account, descriptors and environment), on a daemon started
    /// with `config(plugins:)` and the plugin under the name `probe`: the update emits the effect, the plugin answers
    /// with an event, and the update keeps it in the model's `seen`.
    static func probeReport(_ daemon: DaemonProcess) throws -> JSONValue {
        let client = try daemon.connect()
        let ack = try client.request(emit(["type": "probe"]))
        guard ack.isAck else { throw DaemonTestError("the probe's effect was refused: \(ack)") }
        var report: JSONValue?
        try DaemonTraffic.eventually("the probe's report arrives") {
            report = try client.request("model").model?["seen"]?.arrayValue?.first { $0["type"] == "probe" }
            return report != nil
        }
        return report!
    }

    /// An executable script in `scratch` that fails at start like a broken plugin (writing `stderr` at `<3>` and
    /// exiting 1) while `scratch/broken` exists, and runs behave.py otherwise: a plugin the test breaks and fixes.
    static func breakablePlugin(in scratch: DaemonScratch, named name: String, stderr: String) throws -> String {
        let path = scratch.write(
            name,
            """
            #!/bin/sh
            if [ -e '\(scratch.file("broken"))' ]; then echo '<3>\(stderr)' >&2; exit 1; fi
            exec '\(behave)'
            """)
        try FileSystem.setMode(path, 0o755)
        return path
    }

    /// Writes `config` as `scratch/mobiusd.json` and returns its path.
    static func writeConfig(_ config: JSONValue, in scratch: DaemonScratch) -> String {
        scratch.write("mobiusd.json", String(decoding: config.encoded(), as: UTF8.self))
    }
}
