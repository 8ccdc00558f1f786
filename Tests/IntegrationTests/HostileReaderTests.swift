import Foundation
import Glibc
import MobiusTestSupport
import Testing

/// docs/protocol.md 1.5: a client that sends thousands of requests and never reads costs about `maxOutputBytes` plus one
/// reply, and other clients are still served.
@Suite(.serialized, .timeLimit(.scaled(minutes: 3)))
struct HostileReaderTests {
    /// How much the daemon may grow while one client floods it: generous next to a 1 MiB output bound plus a
    /// 512 KiB reply, far below what a daemon that answers every line it has read reaches (for `model`, gigabytes
    /// within seconds; for `status`, tens of MiB per second).
    static let growthLimit = 24 << 20
    /// The floods' socket settings: a 1 MiB output bound, and the stall timeout scaled as the floods' windows are.
    static let socket = #""maxOutputBytes":1048576,"stallTimeout":\#(DaemonTraffic.stallTimeout)"#

    @Test(arguments: ["model", "status"])
    func clientThatNeverReadsCannotGrowTheDaemon(command: String) throws {
        let blob = String(repeating: "x", count: 512 << 10)
        let daemon = try DaemonProcess.start(
            config: #"{"update":{"builtin":"store"},"model":{"blob":"\#(blob)"},"socket":{\#(Self.socket)}}"#,
            extraArguments: ["--ephemeral"])
        let other = try daemon.connect()
        #expect(try other.request(command).ok == true)
        let baseline = try daemon.residentBytes()
        let flooder = try daemon.connect()
        // A big send buffer lets the kernel take megabytes of requests at once, as any client may ask for.
        flooder.setSendBuffer(bytes: 4 << 20)
        let requests = Array(String(repeating: "\(command)\n", count: 1_000_000).utf8)
        var sent = 0
        var peak = baseline
        let started = ContinuousClock.now
        var nextPing = started
        var pings = 0
        while ContinuousClock.now - started < TestTime.scaled(.seconds(5)) {
            if sent < requests.count {
                sent += try flooder.sendWithoutBlocking(requests[sent...])
            }
            peak = max(peak, try daemon.residentBytes())
            if !Sanitizer.inflatesMemory && peak - baseline > Self.growthLimit {
                Issue.record(
                    "RSS grew from \(baseline >> 20) to \(peak >> 20) MiB after \(sent / (command.count + 1)) lines")
                return
            }
            if ContinuousClock.now >= nextPing {
                // Liveness, not speed: a daemon busy with the flood's backlog would not answer at all.
                let ping = try other.request("ping", timeout: .seconds(5))
                #expect(ping.ok == true, "\(ping)")
                pings += 1
                nextPing = ContinuousClock.now + .milliseconds(500)
            }
            usleep(20_000)
        }
        #expect(sent >= 2_000 * (command.count + 1), "the flood sent thousands of lines (\(sent) bytes)")
        #expect(pings >= 3)
        #expect(daemon.isRunning, "mobiusd died: \(daemon.standardError)")
        flooder.close()
        #expect(try other.request("ping", timeout: .seconds(10)).ok == true)
    }

    /// The same with durable events (`fsync: "always"`, synced by the kernel in the background where it can): the
    /// flood's passes are journaled while its acks pile up unread, and the daemon stays within its bounds and keeps
    /// answering others.
    @Test func durableEventFloodThatNeverReadsCannotGrowTheDaemon() throws {
        let sandbox = JournalSandbox()
        let daemon = try sandbox.start(state: #""logWindowBytes":1048576"#, socket: Self.socket)
        let other = try daemon.connect()
        let baseline = try daemon.residentBytes()
        let flooder = try daemon.connect()
        flooder.setSendBuffer(bytes: 4 << 20)
        let line = #"{"type":"increment"}"# + "\n"
        // 2,000,000 events: answered without a bound, their acks alone would be 48 MB.
        let requests = Array(String(repeating: line, count: 2_000_000).utf8)
        var sent = 0
        var peak = baseline
        var pings = 0
        let started = ContinuousClock.now
        while ContinuousClock.now - started < TestTime.scaled(.seconds(4)) {
            if sent < requests.count { sent += try flooder.sendWithoutBlocking(requests[sent...]) }
            peak = max(peak, try daemon.residentBytes())
            let ping = try other.request("ping", timeout: .seconds(5))
            #expect(ping.ok == true, "\(ping)")
            pings += 1
            usleep(100_000)
        }
        #expect(
            Sanitizer.inflatesMemory || peak - baseline <= Self.growthLimit,
            "RSS grew from \(baseline >> 20) to \(peak >> 20) MiB")
        #expect(sent >= 40_000 * line.utf8.count, "the flood sent 40,000 events or more (\(sent) bytes)")
        #expect(pings >= 20)
        let applied = try #require(try other.request("status").seq)
        #expect(applied > 10_000, "the flood's events were journaled (seq \(applied))")
        #expect(
            applied < Int64(requests.count / line.utf8.count),
            "the daemon stopped reading the flood once its acks reached the output bound (seq \(applied))")
        #expect(daemon.isRunning, "mobiusd died: \(daemon.standardError)")
    }
}
