import MobiusSystem
import Testing

/// docs/durability.md, "Where": the state directory is made 0700 and every file in it 0600, whatever the umask, so
/// the history is the daemon's user's (and root's) alone; another user cannot read a segment even in a directory
/// an operator made 0755. docs/security.md cites these.
@Suite(.serialized, .timeLimit(.scaled(minutes: 2)))
struct StateFilePermissionTests {
    static let increment = #"{"type":"increment"}"#
    /// Starts the rest of the command line with umask 0, so the modes seen are the ones the daemon asked for.
    static let noUmask = ["/bin/sh", "-c", "umask 0 && exec \"$0\" \"$@\""]

    static func mode(_ path: String) -> String {
        HostileProbe.fileStatus(path).map { String($0.mode, radix: 8) } ?? "missing"
    }

    @Test func directoryAndFilesArePrivateWhateverTheUmask() throws {
        let sandbox = JournalSandbox()
        let daemon = try sandbox.start(state: #""snapshotEvents":2"#, launcher: Self.noUmask)
        let client = try daemon.connect()
        for _ in 0..<3 { #expect(try client.request(Self.increment).isAck) }
        try DaemonTraffic.eventually("a snapshot is written") { sandbox.files().contains { $0.hasSuffix(".snapshot") } }
        try daemon.terminate()
        #expect(Self.mode(sandbox.stateDirectory) == "700")
        let files = sandbox.files()
        #expect(files.contains("epoch") && files.contains("lock") && files.contains { $0.hasSuffix(".journal") })
        for file in files {
            #expect(Self.mode("\(sandbox.stateDirectory)/\(file)") == "600", "\(file)")
        }
    }

    @Test func anotherUserCannotReadTheJournalInAnOpenDirectory() throws {
        let sandbox = JournalSandbox()
        try FileSystem.makeDirectories(sandbox.stateDirectory, mode: 0o755)
        try FileSystem.setMode(sandbox.stateDirectory, 0o755)
        let daemon = try sandbox.start()
        #expect(try daemon.connect().request(Self.increment).isAck)
        let segment = try #require(sandbox.segments().first)
        let nobody = OtherUser.nobody.launcher
        let read = try DaemonToolRun.run(nobody[0], Array(nobody.dropFirst()) + ["cat", segment])
        #expect(read.exit != .exited(0) && read.stderr.contains("Permission denied"), "\(read.exit): \(read.stderr)")
        #expect(read.stdout.isEmpty)
        // The names are visible in a 0755 directory; only a directory the daemon made (0700) hides them too.
        let list = try DaemonToolRun.run(nobody[0], Array(nobody.dropFirst()) + ["ls", sandbox.stateDirectory])
        #expect(list.exit == .exited(0) && list.stdout.contains(".journal"), "\(list.exit): \(list.stderr)")
        try daemon.terminate()
    }
}
