import Foundation
import Glibc
import Testing

/// docs/protocol.md 1.1: the socket's directory is checked before binding, so another local user can never pre-create
/// it and own the path; missing directories are created with fixed modes.
@Suite(.serialized, .timeLimit(.scaled(minutes: 3)))
struct HostileSocketDirectoryTests {
    /// A directory `name` in a fresh scratch directory with exactly `mode`, owned by `owner`/`group` when given.
    static func directory(
        _ scratch: DaemonScratch, _ name: String, mode: mode_t, owner: uid_t? = nil, group: gid_t? = nil
    ) throws -> String {
        let path = scratch.file(name)
        guard mkdir(path, 0o700) == 0, chown(path, owner ?? geteuid(), group ?? getegid()) == 0,
            chmod(path, mode) == 0
        else { throw DaemonTestError("cannot prepare \(path): \(String(cString: strerror(errno)))") }
        return path
    }

    /// Runs mobiusd with its socket in `directory`, expecting it to refuse to start.
    static func refusal(socketIn directory: String) throws -> DaemonToolRun {
        do {
            return try DaemonToolRun.run(
                DaemonSpawn.mobiusdPath, ["--socket", directory + "/x.sock", "--ephemeral"], timeout: .seconds(10))
        } catch {
            throw DaemonTestError("mobiusd started with its socket in \(directory) instead of refusing: \(error)")
        }
    }

    /// The refusal exited non-zero (not by a signal), named the directory and said why.
    static func expectRefused(
        _ run: DaemonToolRun, directory: String, reason: String, sourceLocation: SourceLocation = #_sourceLocation
    ) {
        let failed = if case .exited(let code) = run.exit { code != 0 } else { false }
        #expect(failed, "mobiusd should exit non-zero: \(run.exit)", sourceLocation: sourceLocation)
        #expect(
            run.stderr.contains(directory), "stderr names the directory: \(run.stderr)", sourceLocation: sourceLocation)
        #expect(
            run.stderr.lowercased().contains(reason), "stderr says why (\(reason)): \(run.stderr)",
            sourceLocation: sourceLocation)
        #expect(
            HostileProbe.fileStatus(directory + "/x.sock") == nil, "no socket was bound",
            sourceLocation: sourceLocation)
    }

    @Test func worldWritableDirectoryIsRefusedUnlessSticky() throws {
        let scratch = DaemonScratch()
        let open = try Self.directory(scratch, "open", mode: 0o777)
        Self.expectRefused(try Self.refusal(socketIn: open), directory: open, reason: "writable")

        // The same directory with the sticky bit, as /tmp is: nobody can replace the daemon's socket.
        #expect(chmod(open, 0o1777) == 0)
        let daemon = try DaemonProcess(
            scratch: scratch, arguments: ["--socket", open + "/x.sock", "--ephemeral"], socketPath: open + "/x.sock")
        #expect(try daemon.connect().request("ping").ok == true)
    }

    @Test(.enabled(if: HostileProbe.isRoot, "chown to another user needs root"))
    func directoryOwnedByAnotherUserIsRefused() throws {
        let scratch = DaemonScratch()
        let theirs = try Self.directory(scratch, "theirs", mode: 0o755, owner: 65534, group: 65534)
        Self.expectRefused(try Self.refusal(socketIn: theirs), directory: theirs, reason: "own")
    }

    @Test(.enabled(if: HostileProbe.isRoot, "chgrp to a group we are not in needs root"))
    func directoryWritableByAnotherGroupIsRefused() throws {
        let scratch = DaemonScratch()
        let shared = try Self.directory(scratch, "shared", mode: 0o775, group: 65534)
        Self.expectRefused(try Self.refusal(socketIn: shared), directory: shared, reason: "writable")

        // Group-writable for the daemon's own group is fine.
        let ours = try Self.directory(scratch, "ours", mode: 0o775, group: getegid())
        let daemon = try DaemonProcess(
            scratch: scratch, arguments: ["--socket", ours + "/x.sock", "--ephemeral"], socketPath: ours + "/x.sock")
        #expect(try daemon.connect().request("ping").ok == true)
    }

    @Test func missingDirectoriesOfAnExplicitPathAreCreatedWith0755() throws {
        let scratch = DaemonScratch()
        let socket = scratch.file("made/deeper/x.sock")
        let daemon = try DaemonProcess(
            scratch: scratch, arguments: ["--socket", socket, "--ephemeral"], socketPath: socket)
        #expect(try daemon.connect().request("ping").ok == true)
        for made in ["made", "made/deeper"] {
            let status = HostileProbe.fileStatus(scratch.file(made))
            #expect(status?.mode == 0o755, "\(made): mode \(String(status?.mode ?? 0, radix: 8))")
            #expect(status?.owner == geteuid(), "\(made) belongs to the daemon's user")
        }
    }

    /// The `/tmp/mobiusd-<uid>` fallback is shared by every run on the machine, so the daemon runs as a user id
    /// nobody else uses (through `setpriv`), which gives it a fallback directory of its own.
    @Test(.enabled(if: HostileProbe.isRoot && DaemonSpawn.which("setpriv") != nil, "needs root and setpriv"))
    func fallbackDirectoryWithoutXDGRuntimeDirIsCreatedPrivate() throws {
        var uid = UInt32.random(in: 2_000_000..<3_000_000)
        while HostileProbe.fileStatus("/tmp/mobiusd-\(uid)") != nil { uid = UInt32.random(in: 2_000_000..<3_000_000) }
        let fallback = "/tmp/mobiusd-\(uid)"
        defer { try? FileManager.default.removeItem(atPath: fallback) }

        let scratch = DaemonScratch()
        let home = try Self.directory(scratch, "home", mode: 0o700, owner: uid, group: uid)
        // The build directory may be private to root: the daemon runs from a copy it can read.
        let binary = scratch.file("mobiusd")
        try FileManager.default.copyItem(atPath: DaemonSpawn.mobiusdPath, toPath: binary)
        chmod(binary, 0o755)
        let config = scratch.write("mobiusd.json", #"{"app":"hostile-fallback","update":{"builtin":"counter"}}"#)
        let daemon = try DaemonProcess(
            scratch: scratch, arguments: ["--config", config, "--ephemeral"],
            socketPath: fallback + "/hostile-fallback.sock", program: binary,
            launcher: ["setpriv", "--reuid=\(uid)", "--regid=\(uid)", "--clear-groups", "--"],
            environment: ["PATH": "/usr/local/bin:/usr/bin:/bin", "HOME": home, "XDG_STATE_HOME": home + "/state"])
        #expect(try daemon.connect().request("ping").ok == true)
        let status = HostileProbe.fileStatus(fallback)
        #expect(status?.mode == 0o700, "\(fallback): mode \(String(status?.mode ?? 0, radix: 8))")
        #expect(status?.owner == uid, "\(fallback) belongs to the daemon's user")
        _ = try? daemon.terminate(timeout: .seconds(10))
    }
}
