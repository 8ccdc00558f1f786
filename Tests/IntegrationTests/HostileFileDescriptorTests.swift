import Foundation
import Glibc
import MobiusSystem
import Testing

/// docs/protocol.md 1.5, file descriptors: the daemon raises its soft RLIMIT_NOFILE at start, and running out of
/// descriptors stops accepting for a while instead of spinning on accept and logging every failure.
@Suite(.serialized, .timeLimit(.scaled(minutes: 2)), .enabled(if: DaemonSpawn.which("prlimit") != nil, "needs prlimit"))
struct HostileFileDescriptorTests {
    /// mobiusd started through `prlimit --nofile=SOFT:HARD`, which sets the limits and execs it.
    static func start(soft: Int, hard: Int) throws -> DaemonProcess {
        let scratch = DaemonScratch()
        return try DaemonProcess(
            scratch: scratch, arguments: ["--socket", scratch.file("x.sock"), "--ephemeral"],
            socketPath: scratch.file("x.sock"), launcher: ["prlimit", "--nofile=\(soft):\(hard)", "--"])
    }

    @Test func softOpenFileLimitIsRaisedToTheHardLimitAtStart() throws {
        let daemon = try Self.start(soft: 64, hard: 4096)
        let limits = try HostileProbe.openFileLimits(pid: daemon.pid)
        #expect(limits.hard == "4096", "prlimit set the hard limit: \(limits)")
        #expect(limits.soft == "4096", "the daemon raises its soft limit to the hard one: \(limits)")
        #expect(try daemon.connect().request("ping").ok == true)
    }

    @Test func runningOutOfDescriptorsNeitherSpinsNorFloodsTheLog() throws {
        let daemon = try Self.start(soft: 64, hard: 64)
        let steady = try daemon.connect()
        #expect(try steady.request("ping").ok == true)
        // More connections than the daemon has descriptors for: the rest wait in the listen backlog (or are
        // refused when it is full), so every accept the daemon tries fails with EMFILE.
        var clients: [FileDescriptor] = []
        defer { clients.forEach { $0.close() } }
        for _ in 0..<100 {
            if let fd = HostileProbe.connectWithoutBlocking(daemon.socketPath) { clients.append(fd) }
        }
        #expect(clients.count >= 64, "the test reached the limit (\(clients.count) connections)")
        usleep(300_000)
        let cpuBefore = try HostileProbe.cpuSeconds(pid: daemon.pid)
        usleep(3_000_000)
        let cpuSpent = try HostileProbe.cpuSeconds(pid: daemon.pid) - cpuBefore
        #expect(cpuSpent < 0.5, "the daemon used \(cpuSpent) s of CPU in 3 s while at its descriptor limit")
        #expect(daemon.isRunning, "mobiusd died: \(daemon.standardError.suffix(2000))")
        #expect(try steady.request("ping", timeout: .seconds(10)).ok == true, "an accepted client is still served")

        let lines = daemon.standardError.split(separator: "\n")
        let aboutAccept = lines.filter { line in
            let lower = line.lowercased()
            return ["emfile", "enfile", "open files", "descriptor", "accept"].contains { lower.contains($0) }
        }
        #expect(aboutAccept.count >= 1, "the episode is logged: \(daemon.standardError.suffix(2000))")
        #expect(
            aboutAccept.count < 10,
            "one line per episode, not per attempt: \(aboutAccept.count) lines, e.g. \(aboutAccept.prefix(3))")

        clients.forEach { $0.close() }
        clients = []
        steady.close()
        // Once descriptors are free again, new clients are accepted and served.
        try DaemonTraffic.eventually("a new connection is served", timeout: .seconds(15)) {
            guard let client = try? daemon.connect(), let ping = try? client.request("ping", timeout: .seconds(2))
            else { return false }
            return ping.ok == true
        }
    }
}
