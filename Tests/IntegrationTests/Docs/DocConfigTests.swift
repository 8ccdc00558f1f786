import Foundation
import MobiusSystem
import Testing

/// Issue 11 item 4: every config in the docs and under Examples/ passes `--check` where it is documented, so none
/// can rot. Blocks are found and marked as DocCatalog describes; a `json` block that is not a whole config must be
/// marked `json fragment`, or this test fails on it.
@Suite(.serialized, .timeLimit(.scaled(minutes: 3)))
struct DocConfigTests {
    @Test("the docs have configs to check")
    func theCatalogFindsConfigs() {
        #expect(DocCatalog.configs.count >= 2, "\(DocCatalog.markdownFiles)")
        #expect(DocCatalog.configFiles.contains("Examples/Thermostat/thermostat.json"), "\(DocCatalog.configFiles)")
    }

    @Test("a json block in the docs passes --check", arguments: DocCatalog.configs)
    func configBlockPassesCheck(_ fence: DocFence) throws {
        let scratch = DaemonScratch()
        var path = scratch.write("config.json", fence.body)
        if let directory = fence.value("dir") {
            path = "\(DocCatalog.packageDirectory)/\(directory)/.doccheck-\(fence.line)-\(UUID().uuidString).json"
            try #require(
                FileSystem.exists("\(DocCatalog.packageDirectory)/\(directory)"), "dir=\(directory) is missing")
            try fence.body.write(toFile: path, atomically: false, encoding: .utf8)
        }
        defer { if fence.value("dir") != nil { try? FileManager.default.removeItem(atPath: path) } }
        let program = fence.value("app").map(DaemonSpawn.fixture) ?? DaemonSpawn.mobiusdPath
        try Self.expectCheckPasses(program: program, config: path, what: "\(fence.testDescription)")
    }

    @Test("a config file under Examples/ passes --check", arguments: DocCatalog.configFiles)
    func configFilePassesCheck(_ file: String) throws {
        let path = "\(DocCatalog.packageDirectory)/\(file)"
        let object = try JSONSerialization.jsonObject(with: Data(contentsOf: URL(fileURLWithPath: path)))
        var program = DaemonSpawn.mobiusdPath
        if (object as? [String: Any])?["update"] == nil {
            // A typed app brings its own update: check the file with the app built from the same example folder.
            program = try #require(Self.typedApp(near: file), "\(file) has no update and no app under Sources/")
        }
        try Self.expectCheckPasses(program: program, config: path, what: file)
    }

    /// The executable built from `Examples/X/Sources/NAME` for a config in `Examples/X/`.
    static func typedApp(near file: String) -> String? {
        let folder = URL(fileURLWithPath: "\(DocCatalog.packageDirectory)/\(file)").deletingLastPathComponent()
        let sources = folder.appendingPathComponent("Sources").path
        let names = (try? FileManager.default.contentsOfDirectory(atPath: sources)) ?? []
        return names.sorted().map(DaemonSpawn.fixture).first { FileSystem.isExecutable($0) }
    }

    static func expectCheckPasses(program: String, config: String, what: String) throws {
        let run = try DaemonToolRun.run(
            program, ["--check", "--config", config], workingDirectory: DocCatalog.packageDirectory,
            timeout: .seconds(60))
        let hint =
            run.stderr.contains("update: is required")
            ? " (a typed app's config: mark the block `json app=NAME`)" : ""
        #expect(run.exit == .exited(0), "\(what): \(run.exit)\(hint)\n\(run.stdout)\(run.stderr)")
        #expect(run.stdout.contains("configuration OK"), "\(what): \(run.stdout)")
    }
}
