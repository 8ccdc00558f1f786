import Foundation
import MobiusSystem
import Testing

/// Issue 11 item 4: every shell block of README.md, docs/ and the example and plugin READMEs runs here as written,
/// unless it is marked `skip:` with the reason (listed by `skippedBlocksSayWhy`). DocCatalog says how blocks are
/// marked, DocSnippetScript what the runner changes (background commands are waited for, streams get Ctrl-C).
///
/// Each block runs in a mount, PID and network namespace of its own with a private /tmp (PrivateTmp), so the
/// blocks' fixed paths (`/tmp/counter.sock`, `/tmp/mobiusd-UID/…`) meet no other test's, and everything a block
/// starts, daemons that fork included, ends with it; the checkout stays visible even when it lives under /tmp.
@Suite(
    .serialized, .timeLimit(.scaled(minutes: 5)),
    .enabled(if: SystemTools.canUnshareMounts, "needs unshare --mount (root) for a private /tmp"))
struct DocSnippetTests {
    @Test("a shell block of the docs runs", arguments: DocCatalog.snippets)
    func blockRuns(_ fence: DocFence) throws {
        // The counter's default socket depends on XDG_RUNTIME_DIR: blocks that use it must work with and without.
        for xdg in fence.has("counter") ? [true, false] : [true] {
            let script = DocSnippetScript.script(for: fence, xdgRuntimeDirectory: xdg)
            let run = try Self.run(script)
            let setting = xdg ? "XDG_RUNTIME_DIR set" : "XDG_RUNTIME_DIR unset"
            let report =
                "\(fence.testDescription) (\(setting)): \(run.exit)\n--- script\n\(script)--- stdout\n\(run.stdout)"
                + "--- stderr\n\(run.stderr)"
            #expect(run.exit == .exited(0), "\(report)")
            if fence.language != "console" {
                let missing = DocExpectedOutput(fence.body).missing(from: run.stdout)
                #expect(missing.isEmpty, "the block says it prints \(missing)\n\(report)")
            }
        }
    }

    @Test("a block that stands for a file is that file", arguments: DocCatalog.fileCopies)
    func blockIsTheFile(_ fence: DocFence) throws {
        let file = try #require(fence.value("file"))
        let text = try String(contentsOfFile: "\(DocCatalog.packageDirectory)/\(file)", encoding: .utf8)
        #expect(text == fence.body, "\(fence.testDescription) differs from \(file)")
    }

    @Test("skipped shell blocks say why")
    func skippedBlocksSayWhy() {
        for fence in DocCatalog.skipped {
            let reason = fence.skipReason ?? ""
            #expect(reason.count >= 10, "\(fence.testDescription): `skip:` needs a reason")
            print("doccheck: skipped \(fence.testDescription): \(reason)")
        }
    }

    @Test("the runner finds the documented shell blocks")
    func theCatalogFindsSnippets() {
        let runs = DocCatalog.snippets.map(\.testDescription)
        #expect(runs.contains { $0.hasPrefix("README.md:") }, "\(runs)")
        #expect(DocCatalog.snippets.contains { $0.has("counter") }, "\(runs)")
        #expect(!DocCatalog.skipped.isEmpty)
    }

    @Test("a background command is waited for; streams are ended; swift build is not run again")
    func theScriptChangesOnlyWhatItSays() {
        let fence = DocFence(
            file: "x.md", line: 1, language: "sh", marks: "",
            body: "swift build --product x\nfoo --bar &   # a daemon\nfoo && bar\necho a \\\n  b\n")
        let script = DocSnippetScript.script(for: fence, xdgRuntimeDirectory: true)
        #expect(script.contains("foo --bar > >(__doccheck_first_line) &\n__doccheck_wait_listening"), "\(script)")
        #expect(script.contains("\nfoo && bar\n"), "\(script)")
        #expect(script.contains("\necho a \\\n  b\n"), "\(script)")
        #expect(!script.contains("\nswift build"), "\(script)")
        #expect(DocSnippetScript.backgroundCommand("a & # b &") == "a")
        // A daemon of this package is waited for until READY=1.
        let daemon = DocFence(file: "x.md", line: 1, language: "sh", marks: "", body: ".build/debug/mobiusd -x &\n")
        #expect(
            DocSnippetScript.script(for: daemon, xdgRuntimeDirectory: true).contains(
                DocSnippetScript.withBuildUnderTest(".build/debug/mobiusd") + " -x &\n__doccheck_wait_ready"))
        #expect(DocSnippetScript.backgroundCommand("a && b") == nil)
    }

    @Test("a comment that starts with a JSON object is output the block must print, in order; … is any text")
    func expectedOutputIsReadFromComments() {
        let expected = DocExpectedOutput(
            """
            echo x | socat - UNIX-CONNECT:$S     # {"ok":true,"seq":1}
            # {"ok":false,"error":{"code":"InvalidEvent","message":"…"},"line":1} (the app says why)
            # a subscriber: {"seq":3} when another client sends one
            echo "$# {not}"
            """)
        #expect(
            expected.lines == [
                #"{"ok":true,"seq":1}"#, #"{"ok":false,"error":{"code":"InvalidEvent","message":"…"},"line":1}"#,
            ])
        let output = """
            banner
            {"ok":true,"seq":1}
            {"ok":false,"error":{"code":"InvalidEvent","message":"the \\"x\\" is wrong"},"line":1}
            """
        #expect(expected.missing(from: output).isEmpty)
        #expect(expected.missing(from: "{\"ok\":true,\"seq\":2}\n") == expected.lines)
        // Order counts: the second line before the first does not do.
        let reversed = output.split(separator: "\n").reversed().joined(separator: "\n")
        #expect(expected.missing(from: reversed).count == 1)
    }

    /// Runs `script` with bash in private mount, PID and network namespaces with a fresh /tmp (PrivateTmp).
    static func run(_ script: String) throws -> DaemonToolRun {
        try PrivateTmp.run(script)
    }
}
