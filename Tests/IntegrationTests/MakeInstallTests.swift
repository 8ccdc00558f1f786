import Foundation
import MobiusSystem
import Testing

/// `make install-files` (what `make install` runs after its release build) with PREFIX and DESTDIR puts the binaries,
/// units (pointing at the installed binary), man pages, docs and exactly the plugins docs/systemd.md lists where a
/// package would, and `make uninstall` takes them away again.
@Suite(.serialized, .timeLimit(.scaled(minutes: 2)), .enabled(if: DaemonSpawn.which("make") != nil, "make is missing"))
struct MakeInstallTests {
    static let packageDirectory = URL(fileURLWithPath: #filePath).deletingLastPathComponent()
        .deletingLastPathComponent().deletingLastPathComponent().path

    static func make(_ arguments: [String]) throws -> DaemonToolRun {
        try DaemonToolRun.run(
            try #require(DaemonSpawn.which("make")), ["--no-print-directory", "-C", packageDirectory] + arguments,
            environment: ["PATH": SystemProcess.environment("PATH") ?? "/usr/bin:/bin"])
    }

    /// Every regular file under `root`, relative to it, sorted.
    static func files(under root: String) -> [String] {
        let enumerator = FileManager.default.enumerator(atPath: root)
        var found: [String] = []
        while let path = enumerator?.nextObject() as? String {
            var isDirectory: ObjCBool = false
            if FileManager.default.fileExists(atPath: "\(root)/\(path)", isDirectory: &isDirectory),
                !isDirectory.boolValue
            {
                found.append(path)
            }
        }
        return found.sorted()
    }

    /// The files docs/systemd.md says the plugin directory holds: the backquoted names of its sentence "The
    /// plugin directory holds exactly …", which must name every example plugin under Plugins/ (`*/mobiusd-*`).
    static func documentedPlugins() throws -> [String] {
        let doc = try String(contentsOfFile: "\(packageDirectory)/docs/systemd.md", encoding: .utf8)
            .replacingOccurrences(of: "\n", with: " ")
        let sentence = try #require(
            doc.components(separatedBy: "The plugin directory holds exactly ").dropFirst().first?
                .components(separatedBy: ". ").first)
        let named = sentence.components(separatedBy: "`").enumerated().filter { $0.offset % 2 == 1 }.map(\.element)
        let examples = try FileManager.default.contentsOfDirectory(atPath: "\(packageDirectory)/Plugins").flatMap {
            directory in
            ((try? FileManager.default.contentsOfDirectory(atPath: "\(packageDirectory)/Plugins/\(directory)")) ?? [])
                .filter { $0.hasPrefix("mobiusd-") }
        }
        #expect(Set(examples).isSubset(of: named), "docs/systemd.md names \(named), Plugins/ has \(examples)")
        return named.sorted()
    }

    @Test("install-files with PREFIX=/usr under DESTDIR, then uninstall")
    func installAndUninstall() throws {
        let scratch = DaemonScratch()
        let root = scratch.file("root")
        let built = URL(fileURLWithPath: DaemonSpawn.mobiusdPath).deletingLastPathComponent().path
        let install = try Self.make(["install-files", "DESTDIR=\(root)", "PREFIX=/usr", "BUILT=\(built)"])
        #expect(install.exit == .exited(0), "\(install.stdout)\(install.stderr)")
        let installed = Self.files(under: root)
        for wanted in [
            "usr/bin/mobiusd", "usr/bin/mobiusctl", "usr/lib/systemd/system/mobiusd.service",
            "usr/lib/systemd/system/mobiusd.socket", "usr/lib/systemd/system/mobiusd@.service",
            "usr/lib/systemd/system/mobiusd@.socket", "usr/lib/systemd/system/mobiusd-metrics@.service",
            "usr/lib/systemd/system/mobiusd-metrics@.timer", "usr/lib/systemd/user/mobiusd@.service",
            "usr/lib/systemd/user/mobiusd@.socket", "usr/lib/sysusers.d/mobiusd.conf", "usr/share/man/man8/mobiusd.8",
            "usr/share/man/man1/mobiusctl.1",
            "usr/share/doc/mobiusd/README.md", "usr/share/doc/mobiusd/systemd.md",
            "usr/share/bash-completion/completions/mobiusctl", "usr/share/bash-completion/completions/mobiusd",
            "usr/share/zsh/site-functions/_mobiusctl", "usr/share/zsh/site-functions/_mobiusd",
            "usr/share/dbus-1/system.d/org.mobiusd.app.conf",
        ] {
            #expect(installed.contains(wanted), "\(wanted) not installed: \(installed)")
        }
        let plugins = Self.files(under: "\(root)/usr/lib/mobiusd/plugins")
        #expect(plugins == (try Self.documentedPlugins()), "the plugin directory holds \(plugins)")
        let run = try DaemonToolRun.run("\(root)/usr/lib/mobiusd/plugins/mobiusd-exec", [])
        #expect(run.exit == .exited(2) && run.stderr.contains("is a mobiusd plugin"), "\(run.stderr)")
        let unit = try String(contentsOfFile: "\(root)/usr/lib/systemd/system/mobiusd@.service", encoding: .utf8)
        #expect(unit.contains("\nExecStart=/usr/bin/mobiusd --config /etc/mobiusd/%i.json\n"), "\(unit)")
        #expect(FileSystem.isExecutable("\(root)/usr/bin/mobiusd"))
        // The sysusers file makes the user and the group the D-Bus policy names (into a scratch root, never /etc).
        if let sysusers = DaemonSpawn.which("systemd-sysusers") {
            let system = scratch.file("system")
            try FileSystem.makeDirectories("\(system)/etc", mode: 0o755)
            let run = try DaemonToolRun.run(sysusers, ["--root=\(system)", "\(root)/usr/lib/sysusers.d/mobiusd.conf"])
            #expect(run.exit == .exited(0), "\(run.stderr)")
            #expect(scratch.read("system/etc/passwd").contains("mobiusd:x:"), "\(run.stderr)")
            #expect(scratch.read("system/etc/group").contains("mobiusd-send:x:"), "\(run.stderr)")
        }

        let uninstall = try Self.make(["uninstall", "DESTDIR=\(root)", "PREFIX=/usr"])
        #expect(uninstall.exit == .exited(0), "\(uninstall.stdout)\(uninstall.stderr)")
        #expect(Self.files(under: root).isEmpty, "left behind: \(Self.files(under: root))")
    }
}
