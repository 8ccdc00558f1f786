import MobiusSystem
import MobiusTestSupport
import Testing

/// docs/protocol.md 1.1 and 4: a socket systemd passes (here `systemd-socket-activate`, which does what a .socket unit
/// does) is used instead of binding, the one named `control` preferred, and never unlinked.
@Suite(
    .serialized, .timeLimit(.scaled(minutes: 2)),
    .enabled(
        if: SystemTools.socketActivate != nil && SystemTools.socat != nil,
        "systemd-socket-activate or socat is missing: `make deps` installs the Debian packages systemd and socat"))
struct SocketActivationTests {
    static let increment = #"{"type":"increment"}"#

    @Test("started on the first connection; serves on the passed socket; the socket file outlives the daemon")
    func activatedOnFirstConnection() throws {
        let activate = try #require(SystemTools.socketActivate)
        let scratch = DaemonScratch()
        let path = scratch.file("activated.sock")
        let configured = scratch.file("configured.sock")
        let daemon = try DaemonProcess(
            scratch: scratch, arguments: ["--ephemeral", "--socket", configured], socketPath: path,
            launcher: [activate, "-l", path, "--fdname=control"])
        #expect(try daemon.connect().request(Self.increment).seq == 1)
        #expect(daemon.standardOutput.contains("listening on \(path)"), "\(daemon.standardOutput)")
        #expect(!FileSystem.exists(configured), "nothing is bound at the configured path")
        #expect(try daemon.terminate() == .exited(0))
        #expect(FileSystem.isSocket(path), "the activated socket is systemd's: it stays")
    }

    @Test("of two passed sockets the one named control is served; the other is closed")
    func prefersControl() throws {
        let activate = try #require(SystemTools.socketActivate)
        let scratch = DaemonScratch()
        let other = scratch.file("metrics.sock")
        let control = scratch.file("control.sock")
        let daemon = try DaemonProcess(
            scratch: scratch, arguments: ["--ephemeral"], socketPath: control,
            launcher: [activate, "-l", other, "-l", control, "--fdname=metrics:control"])
        #expect(try daemon.connect().request(Self.increment).seq == 1)
        #expect((try? DaemonLineClient(path: other)) == nil, "the socket not named control is not served")
        #expect(try daemon.terminate() == .exited(0))
    }

    @Test("a passed datagram socket is refused at start with a message naming it")
    func datagramSocketRefused() throws {
        let activate = try #require(SystemTools.socketActivate)
        let socat = try #require(SystemTools.socat)
        let scratch = DaemonScratch()
        let path = scratch.file("datagram.sock")
        let daemon = try DaemonProcess(
            scratch: scratch, arguments: ["--ephemeral", "--socket", scratch.file("x.sock")], socketPath: path,
            launcher: [activate, "--datagram", "-l", path, "--fdname=control"], waitForSocket: false)
        // The launcher starts the daemon on the first datagram.
        var sent = false
        for _ in 0..<400 where !sent {
            let run = try DaemonToolRun.run(socat, ["-", "UNIX-SENDTO:\(path)"], stdin: Array("x\n".utf8))
            sent = run.exit == .exited(0)
            if !sent { try SystemClock.sleep(nanoseconds: 10_000_000) }
        }
        #expect(try daemon.waitForExit() == .exited(1))
        #expect(daemon.standardError.contains("none is a listening Unix stream socket"), "\(daemon.standardError)")
        #expect(daemon.standardError.contains("control"))
    }
}
