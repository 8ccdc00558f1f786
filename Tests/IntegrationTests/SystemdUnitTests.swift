import Foundation
import MobiusSystem
import Testing

/// The units in systemd/ (issue #7): `systemd-analyze verify` passes for every one, the system services score at most
/// 2.0 in `systemd-analyze security --offline=yes`, and each service keeps the lines the daemon relies on.
@Suite(
    .serialized, .timeLimit(.scaled(minutes: 2)),
    .enabled(
        if: SystemTools.analyze != nil, "systemd-analyze is missing: `make deps` installs the Debian package systemd"))
struct SystemdUnitTests {
    /// systemd/ in the package that holds this file.
    static let unitDirectory = URL(fileURLWithPath: #filePath).deletingLastPathComponent()
        .deletingLastPathComponent().deletingLastPathComponent().appendingPathComponent("systemd").path

    /// Copies the units in `subdirectory` of systemd/ into a scratch directory with ExecStart and ExecReload pointing
    /// at the built mobiusd and mobiusctl (verify checks that the programs exist).
    static func copyUnits(_ subdirectory: String = "") throws -> (DaemonScratch, [String]) {
        let scratch = DaemonScratch()
        let source = subdirectory.isEmpty ? unitDirectory : "\(unitDirectory)/\(subdirectory)"
        let names = try FileManager.default.contentsOfDirectory(atPath: source)
            .filter { $0.hasSuffix(".service") || $0.hasSuffix(".socket") || $0.hasSuffix(".timer") }.sorted()
        for name in names {
            let text = try String(contentsOfFile: "\(source)/\(name)", encoding: .utf8)
            let built = URL(fileURLWithPath: DaemonSpawn.mobiusdPath).deletingLastPathComponent().path
            scratch.write(name, text.replacingOccurrences(of: "/usr/local/bin/", with: built + "/"))
        }
        return (scratch, names)
    }

    /// `mobiusd@.service` → `mobiusd@demo.service` (verify and security take instances, not templates).
    static func instance(_ name: String) -> String {
        name.replacingOccurrences(of: "@.", with: "@demo.")
    }

    static func analyze(_ arguments: [String], in scratch: DaemonScratch, user: Bool = false) throws -> DaemonToolRun {
        var environment = ["PATH": SystemProcess.environment("PATH") ?? "/usr/bin:/bin"]
        if user {
            try FileSystem.makeDirectories(scratch.file("runtime"), mode: 0o700)
            environment["XDG_RUNTIME_DIR"] = scratch.file("runtime")
        }
        return try DaemonToolRun.run(
            try #require(SystemTools.analyze), (user ? ["--user"] : []) + arguments, workingDirectory: scratch.path,
            environment: environment)
    }

    @Test("the system units pass systemd-analyze verify")
    func systemUnitsVerify() throws {
        let (scratch, names) = try Self.copyUnits()
        #expect(
            names == [
                "mobiusd-metrics@.service", "mobiusd-metrics@.timer", "mobiusd.service", "mobiusd.socket",
                "mobiusd@.service", "mobiusd@.socket",
            ])
        let run = try Self.analyze(["verify", "--man=no"] + names.map(Self.instance), in: scratch)
        #expect(run.exit == .exited(0), "\(run.stdout)\(run.stderr)")
        #expect(run.stderr.isEmpty, "\(run.stderr)")
    }

    @Test("the user units pass systemd-analyze --user verify")
    func userUnitsVerify() throws {
        let (scratch, names) = try Self.copyUnits("user")
        #expect(names == ["mobiusd@.service", "mobiusd@.socket"])
        let run = try Self.analyze(["verify", "--man=no"] + names.map(Self.instance), in: scratch, user: true)
        #expect(run.exit == .exited(0), "\(run.stdout)\(run.stderr)")
        #expect(run.stderr.isEmpty, "\(run.stderr)")
    }

    @Test(
        "the system services score at most 2.0 in systemd-analyze security",
        arguments: ["mobiusd.service", "mobiusd@.service", "mobiusd-metrics@.service"])
    func exposure(service: String) throws {
        let (scratch, _) = try Self.copyUnits()
        let run = try Self.analyze(["security", "--offline=yes", Self.instance(service)], in: scratch)
        let marker = "Overall exposure level for \(Self.instance(service)): "
        let line = try #require(run.stdout.split(separator: "\n").first { $0.contains(marker) }, "\(run.stdout)")
        let score = try #require(Double(line.components(separatedBy: marker)[1].prefix { $0 != " " }))
        #expect(score <= 2.0, "\(line)")
    }

    @Test("every service is Type=notify with the watchdog, reload, restart and state lines the daemon relies on")
    func serviceEssentials() throws {
        // `systemctl reload` waits for mobiusctl, which waits for the daemon's outcome, on the unit's own socket.
        let reloads = [
            "mobiusd.service": "ExecReload=+/usr/local/bin/mobiusctl --human --socket /run/mobiusd/counter.sock reload",
            "mobiusd@.service": "ExecReload=+/usr/local/bin/mobiusctl --human --socket /run/mobiusd/%i.sock reload",
            "user/mobiusd@.service": "ExecReload=/usr/local/bin/mobiusctl --human --socket %t/mobiusd/%i.sock reload",
        ]
        for (directory, names) in [("", ["mobiusd.service", "mobiusd@.service"]), ("user", ["mobiusd@.service"])] {
            for name in names {
                let unit = directory.isEmpty ? name : "\(directory)/\(name)"
                let path = "\(Self.unitDirectory)/\(unit)"
                let lines = Set(
                    try String(contentsOfFile: path, encoding: .utf8).split(separator: "\n").map(String.init))
                for wanted in [
                    "Type=notify", "NotifyAccess=main", "WatchdogSec=30s", "Restart=on-failure", reloads[unit]!,
                ] {
                    #expect(lines.contains(wanted), "\(path) lacks \(wanted)")
                }
                #expect(lines.contains { $0.hasPrefix("StateDirectory=mobiusd/") }, "\(path) lacks StateDirectory=")
            }
        }
    }

    @Test("every socket is a stream socket named control")
    func socketEssentials() throws {
        for path in ["mobiusd.socket", "mobiusd@.socket", "user/mobiusd@.socket"].map({ "\(Self.unitDirectory)/\($0)" })
        {
            let text = try String(contentsOfFile: path, encoding: .utf8)
            #expect(text.contains("\nListenStream="), "\(path)")
            #expect(text.contains("\nFileDescriptorName=control\n"), "\(path)")
        }
    }
}
