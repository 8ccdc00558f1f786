import Foundation
import Glibc
import MobiusJSON
import Testing

/// docs/protocol.md 1.1 and 4: the socket file's life (stale files, a live owner, mode) and a clean SIGTERM.
@Suite(.serialized, .timeLimit(.scaled(minutes: 3)))
struct DaemonSocketFileTests {
    static let increment = #"{"type":"increment"}"#

    static func isSocket(_ path: String) -> Bool {
        var info = stat()
        return lstat(path, &info) == 0 && info.st_mode & S_IFMT == S_IFSOCK
    }

    static func permissions(_ path: String) -> UInt32? {
        var info = stat()
        guard lstat(path, &info) == 0 else { return nil }
        return UInt32(info.st_mode) & 0o777
    }

    @Test func staleSocketFromAKilledDaemonIsReplaced() throws {
        let scratch = DaemonScratch()
        let socket = scratch.file("x.sock")
        let first = try DaemonProcess(scratch: scratch, arguments: ["--socket", socket], socketPath: socket)
        #expect(try first.connect().request(Self.increment).seq == 1)
        first.send(signal: SIGKILL)
        #expect(try first.waitForExit() == .signaled(SIGKILL))
        #expect(Self.isSocket(socket), "a SIGKILLed daemon leaves its socket file")
        #expect((try? DaemonLineClient(path: socket)) == nil, "nothing accepts on the stale file")

        let second = try DaemonProcess(
            scratch: scratch, arguments: ["--socket", socket], socketPath: socket, name: "second")
        let model = try second.connect().request("model")
        #expect(model.seq == 0 && model.model == 0, "a fresh daemon: \(model)")
    }

    @Test func secondDaemonOnALiveSocketFailsAndTheFirstKeepsServing() throws {
        let scratch = DaemonScratch()
        let socket = scratch.file("x.sock")
        let first = try DaemonProcess(scratch: scratch, arguments: ["--socket", socket], socketPath: socket)
        let client = try first.connect()
        #expect(try client.request(Self.increment).seq == 1)

        let second = try DaemonProcess(
            scratch: scratch, arguments: ["--socket", socket], socketPath: socket, name: "second",
            waitForSocket: false)
        let exit = try second.waitForExit()
        #expect(exit != .exited(0), "\(exit)")
        #expect(second.standardError.contains("already running"), "\(second.standardError)")
        #expect(second.standardError.contains(socket), "the message should name the socket: \(second.standardError)")

        // The first daemon still owns the path: existing and new connections work.
        #expect(first.isRunning)
        #expect(Self.isSocket(socket))
        #expect(try client.request(Self.increment).seq == 2)
        #expect(try first.connect().request("model").model == 2)
    }

    @Test func aRegularFileAtTheSocketPathIsNotRemoved() throws {
        let scratch = DaemonScratch()
        let path = scratch.write("x.sock", "precious data\n")
        let daemon = try DaemonProcess(
            scratch: scratch, arguments: ["--socket", path], socketPath: path, waitForSocket: false)
        let exit = try daemon.waitForExit()
        #expect(exit != .exited(0), "\(exit)")
        #expect(daemon.standardError.contains(path), "\(daemon.standardError)")
        #expect(scratch.read("x.sock") == "precious data\n", "the daemon must not delete a file that is not a socket")
    }

    @Test func socketModeComesFromTheConfig() throws {
        let daemon = try DaemonProcess.start(config: #"{"update":{"builtin":"counter"},"socket":{"mode":"0600"}}"#)
        #expect(Self.permissions(daemon.socketPath) == 0o600)
        let open = try DaemonProcess.start(config: #"{"update":{"builtin":"counter"},"socket":{"mode":"0666"}}"#)
        #expect(Self.permissions(open.socketPath) == 0o666)
    }

    @Test func socketModeDefaultsTo0660() throws {
        let daemon = try DaemonProcess.start()
        #expect(Self.permissions(daemon.socketPath) == 0o660)
    }

    @Test func sigtermExitsZeroRemovesTheSocketAndEndsStreamsCleanly() throws {
        let daemon = try DaemonProcess.start()
        let subscriber = try daemon.connect()
        #expect(try subscriber.request("subscribe").seq == 0)
        let writer = try daemon.connect()
        _ = try writer.request(Self.increment)
        #expect(try subscriber.readReply().line == #"{"seq":1,"model":1}"#)

        let exit = try daemon.terminate()
        #expect(exit == .exited(0), "stderr: \(daemon.standardError)")
        #expect(!FileManager.default.fileExists(atPath: daemon.socketPath), "the socket file must be removed")
        // Clean EOF (not ECONNRESET) for both clients.
        #expect(try subscriber.readUntilEndOfFile() == [])
        #expect(try writer.readUntilEndOfFile() == [])
    }

    @Test func sigtermStillDeliversRepliesToAcceptedEvents() throws {
        let daemon = try DaemonProcess.start()
        let subscriber = try daemon.connect()
        #expect(try subscriber.request("subscribe").seq == 0)
        let writer = try daemon.connect()
        // More acks than the kernel buffers hold: the daemon still has some in memory when SIGTERM comes.
        let count = 40_000
        try writer.sendRaw(DaemonTraffic.increments(count))
        var last: Int64 = 0
        while last < Int64(count) {
            last = try subscriber.readReply().seq ?? last
        }
        // Every event is applied; the writer has read none of its acks yet. SIGTERM, then read while the daemon
        // flushes.
        daemon.send(signal: SIGTERM)
        // Read everything first, look at the lines after: the daemon flushes for 5 s, and a sanitized test is slower.
        let text = try writer.readTextUntilEndOfFile()
        #expect(text.last == "\n", "the daemon ended its output at the end of a line")
        var acks: [Int64] = []
        for line in text.split(separator: "\n").map(String.init) {
            let reply = try DaemonReply(line: line)
            guard reply.isAck, let seq = reply.seq else {
                Issue.record("expected only acks, got \(reply)")
                break
            }
            acks.append(seq)
        }
        #expect(try daemon.waitForExit() == .exited(0), "stderr: \(daemon.standardError)")
        #expect(acks.count == count, "every accepted event's ack must be delivered before exit")
        #expect(acks.first == 1 && acks.last == Int64(count))
    }

    @Test func sigintAlsoStopsCleanly() throws {
        let daemon = try DaemonProcess.start()
        #expect(try daemon.connect().request("ping").ok == true)
        daemon.send(signal: SIGINT)
        #expect(try daemon.waitForExit() == .exited(0), "stderr: \(daemon.standardError)")
        #expect(!FileManager.default.fileExists(atPath: daemon.socketPath))
    }

    @Test func sighupDoesNotStopTheDaemon() throws {
        let daemon = try DaemonProcess.start()
        let client = try daemon.connect()
        #expect(try client.request(Self.increment).seq == 1)
        daemon.send(signal: SIGHUP)
        // "SIGHUP without --config reloads nothing, logs so" (docs/protocol.md 4): wait for that log line.
        try DaemonTraffic.eventually("the daemon logs the SIGHUP") { daemon.standardError.contains("SIGHUP") }
        #expect(try client.request(Self.increment).seq == 2)
        #expect(daemon.isRunning)
    }
}
