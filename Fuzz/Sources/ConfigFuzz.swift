import MobiusJSON
import MobiusSystem
import MobiusTestSupport

@testable import MobiusDaemon

/// The config loader (docs/configuration.md): the input is a config file, read as `mobiusd --config` reads it, then
/// resolved as start-up resolves it (the app, the socket, access rules, plugins' programs and accounts), without
/// starting anything.
///
/// Oracles: nothing traps; every refusal names the file and a key: `line L, column C` inside the file for a syntax
/// error (exactly when the JSON parser refuses the bytes), else a key path that is in the document, or a missing key
/// whose parent is; and no message carries a control character other than the excerpt's line break and tabs, so a
/// config cannot write terminal escapes to the operator's screen.
enum ConfigFuzz {
    /// Where the config file is written, once per run of the fuzzer.
    static let directory: TemporaryDirectory = {
        do {
            return try TemporaryDirectory(
                prefix: "mobiusd-fuzz-config", parent: SystemProcess.environment("TMPDIR") ?? "/tmp")
        } catch {
            fatalError("cannot make a scratch directory: \(error)")
        }
    }()

    static func run(_ bytes: [UInt8]) {
        let path = directory.file("app.json")
        do {
            let fd = try FileDescriptor.create(path, mode: 0o600)
            defer { fd.close() }
            try fd.writeAll(bytes)
        } catch {
            fatalError("cannot write \(path): \(error)")
        }
        let document = try? JSONValue(parsing: bytes)
        do {
            let config = try DaemonConfig(file: path)
            check(document != nil, "a config that is not JSON was read")
            try resolve(config)
        } catch {
            checkError(error, path: path, bytes: bytes, document: document)
        }
    }

    /// What start-up does with a config before it serves: picks the app and resolves everything in `DaemonSetup`.
    static func resolve(_ config: DaemonConfig) throws(ConfigError) {
        switch config.update {
        case .builtin(let name)?:
            guard let make = BuiltinApps.all[name] else { return }
            _ = try DaemonSetup(config: config, options: DaemonOptions(), app: make())
        case .plugin(let name)? where config.plugins.contains(where: { $0.name == name }):
            let app = PluginApp.make(plugin: name, name: config.app, model: config.model)
            _ = try DaemonSetup(config: config, options: DaemonOptions(), app: app)
        default:
            return
        }
    }

    static func checkError(_ error: ConfigError, path: String, bytes: [UInt8], document: JSONValue?) {
        check(error.file == path, "\(error) does not name the file")
        let shown = error.description
        let controls = shown.unicodeScalars.filter {
            ($0.value < 0x20 && $0 != "\n" && $0 != "\t") || (0x7F...0x9F).contains($0.value)
        }
        check(
            controls.isEmpty,
            "the message carries control characters \(controls.map(\.value)): \(shown.debugDescription)")
        guard let document else {
            check(error.key.hasPrefix("line "), "a syntax error names no line: \(error)")
            let lines = bytes.filter { $0 == UInt8(ascii: "\n") }.count + 1
            let line = Int(error.key.dropFirst(5).prefix { $0 != "," }) ?? 0
            check(line >= 1 && line <= lines, "line \(line) of a \(lines)-line file")
            return
        }
        check(error.key == "(top level)" || names(error.key, in: document), "\(error) names no key of the document")
    }

    /// Whether `key` (`socket.mode`, `plugins.a.b.exec`, `dbus[2].match.arg0`) leads through the document to a
    /// member, or to a missing member of an object that is there. Member names may hold dots, so every way of
    /// reading the path is tried (on its UTF-8 bytes: a name may end in the middle of a character cluster).
    static func names(_ key: String, in value: JSONValue) -> Bool { names(Array(key.utf8)[...], in: value) }

    static func names(_ key: ArraySlice<UInt8>, in value: JSONValue) -> Bool {
        if case .array(let items) = value {
            guard key.first == UInt8(ascii: "["), let close = key.firstIndex(of: UInt8(ascii: "]")),
                let index = Int(String(decoding: key[(key.startIndex + 1)..<close], as: UTF8.self)),
                items.indices.contains(index)
            else { return false }
            return follows(key[(close + 1)...], items[index])
        }
        guard case .object(let object) = value else { return false }
        for (name, member) in object.members where key.starts(with: name.utf8) {
            if follows(key.dropFirst(name.utf8.count), member) { return true }
        }
        // A required member that is missing: the last component, under an object that is there.
        return !key.isEmpty && !key.contains(UInt8(ascii: ".")) && !key.contains(UInt8(ascii: "["))
    }

    private static func follows(_ rest: ArraySlice<UInt8>, _ value: JSONValue) -> Bool {
        if rest.isEmpty { return true }
        if rest.first == UInt8(ascii: ".") { return names(rest.dropFirst(), in: value) }
        if rest.first == UInt8(ascii: "[") { return names(rest, in: value) }
        return false
    }
}
