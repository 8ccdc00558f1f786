import Foundation

/// The examples in the package's documentation, found by reading the Markdown: README.md, docs/*.md and every
/// README.md under Examples/ and Plugins/, plus the config files under Examples/.
///
/// How a block is marked (the words after the fence's language; README.md, "Checked examples"):
/// - `json`: a whole config, which must pass `mobiusd --check`; with `app=NAME`, the `--check` of NAME, a typed app
///   built by this package (a config for a typed app outside it, such as docs/apps.md's, is checked by one of ours:
///   they read the same keys); with `dir=PATH`, checked as a file in PATH (repository-relative) so its relative
///   plugin paths resolve there.
/// - `json fragment`: not a whole config (a reply, an event, one member); not checked.
/// - `sh` (also `bash`, `shell`, `console`): run by bash (`set -euo pipefail`) from the package root; `sh counter`:
///   run while the embedded counter runs on its default socket, once with XDG_RUNTIME_DIR set and once unset. A
///   comment that starts with a JSON object is output the block must print (DocExpectedOutput).
/// - `sh file=PATH` (or any other language, `python file=PATH`): the block is the file PATH, compared byte for byte
///   instead of run.
/// - `sh skip: REASON`: not run (it needs root, systemd as PID 1, a real system bus…); the test lists it.
enum DocCatalog {
    /// The package root (three levels above this file's folder).
    static let packageDirectory: String = URL(fileURLWithPath: #filePath).deletingLastPathComponent()
        .deletingLastPathComponent().deletingLastPathComponent().deletingLastPathComponent().path

    /// Fence languages that hold commands for a shell.
    static let shellLanguages: Set<String> = ["sh", "bash", "shell", "console"]

    /// The Markdown files whose examples are checked, relative to the package root, sorted.
    static let markdownFiles: [String] = {
        var files =
            ["README.md"]
            + listed(under: "docs").filter { $0.hasSuffix(".md") && !$0.contains("/") }
            .map { "docs/\($0)" }
        for folder in ["Examples", "Plugins"] {
            files += listed(under: folder).filter { $0 == "README.md" || $0.hasSuffix("/README.md") }
                .map { "\(folder)/\($0)" }
        }
        return files.sorted()
    }()

    /// The config files under Examples/, relative to the package root, sorted.
    static let configFiles: [String] = listed(under: "Examples").filter { $0.hasSuffix(".json") }
        .map { "Examples/\($0)" }.sorted()

    /// Every fenced block of every file in `markdownFiles`.
    static let fences: [DocFence] = markdownFiles.flatMap { file -> [DocFence] in
        guard let text = try? String(contentsOfFile: "\(packageDirectory)/\(file)", encoding: .utf8) else { return [] }
        return DocFence.parse(text, file: file)
    }

    /// JSON blocks that claim to be whole configs.
    static var configs: [DocFence] {
        fences.filter { $0.language == "json" && !$0.has("fragment") }
    }

    /// Shell blocks the test runs.
    static var snippets: [DocFence] {
        fences.filter { shellLanguages.contains($0.language) && $0.skipReason == nil && $0.value("file") == nil }
    }

    /// Shell blocks marked `skip:`, with their reasons.
    static var skipped: [DocFence] {
        fences.filter { shellLanguages.contains($0.language) && $0.skipReason != nil }
    }

    /// Blocks that stand for a file of the repository (`file=PATH`), in any language.
    static var fileCopies: [DocFence] {
        fences.filter { $0.value("file") != nil }
    }

    /// Every file under `folder` (relative to it), skipping build products.
    private static func listed(under folder: String) -> [String] {
        let enumerator = FileManager.default.enumerator(atPath: "\(packageDirectory)/\(folder)")
        var found: [String] = []
        while let path = enumerator?.nextObject() as? String {
            if path.hasPrefix(".build") || path.contains("/.build") || path.contains("__pycache__") { continue }
            found.append(path)
        }
        return found
    }
}
