import MobiusJSON
import MobiusSystem
import MobiusTestSupport
import Testing

/// docs/protocol.md 4 against a NOTIFY_SOCKET listener the test owns: READY=1 only once the socket accepts, STATUS kept
/// current, STOPPING=1 and exit 0 on SIGTERM, RELOADING=1 then READY=1 on SIGHUP, WATCHDOG=1 at half of
/// WATCHDOG_USEC from the loop's own thread (a wedged update stops it), and no harm from a broken environment.
@Suite(.serialized, .timeLimit(.scaled(minutes: 3)))
struct SystemdNotifyTests {
    static let increment = #"{"type":"increment"}"#

    /// Starts `program` with NOTIFY_SOCKET (and `extra`) in its environment, without waiting for the socket.
    static func start(
        _ listener: NotifyListener?, scratch: DaemonScratch, extra: [String: String] = [:],
        program: String = DaemonSpawn.mobiusdPath, arguments: [String] = ["--ephemeral"]
    ) throws -> DaemonProcess {
        var environment = SystemProcess.environmentVariables()
        for key in ["NOTIFY_SOCKET", "WATCHDOG_USEC", "WATCHDOG_PID", "LISTEN_FDS", "LISTEN_PID", "JOURNAL_STREAM"] {
            environment[key] = nil
        }
        if let listener { environment["NOTIFY_SOCKET"] = listener.path }
        environment.merge(extra) { _, new in new }
        return try DaemonProcess(
            scratch: scratch, arguments: arguments + ["--socket", scratch.file("x.sock")],
            socketPath: scratch.file("x.sock"), program: program, environment: environment, waitForSocket: false)
    }

    @Test("READY=1 comes once the socket accepts; STATUS follows traffic; SIGTERM sends STOPPING=1 and exits 0")
    func readyStatusStopping() throws {
        let scratch = DaemonScratch()
        let listener = try NotifyListener(scratch: scratch)
        let daemon = try Self.start(listener, scratch: scratch)
        let ready = try listener.next("READY", "1")
        #expect(ready["STATUS"] == "app counter: seq 0, 0 connections")
        // No retry: READY=1 promises the socket is listening.
        let client = try daemon.connect()
        #expect(try client.request(Self.increment).seq == 1)
        try listener.next(timeout: .seconds(15), "STATUS with seq 1") { $0["STATUS"]?.contains("seq 1") == true }
        client.close()
        #expect(try daemon.terminate() == .exited(0))
        let rest = try listener.drain()
        #expect(rest.contains { $0["STOPPING"] == "1" }, "\(listener.texts)")
        #expect(!listener.received.contains { $0["WATCHDOG"] != nil }, "no watchdog without WATCHDOG_USEC")
        #expect(listener.received.filter { $0["READY"] != nil }.count == 1)
    }

    @Test("SIGHUP: RELOADING=1 with the monotonic time, then READY=1")
    func reloadNotifies() throws {
        let scratch = DaemonScratch()
        let listener = try NotifyListener(scratch: scratch)
        let daemon = try Self.start(listener, scratch: scratch)
        try listener.next("READY", "1")
        let before = SystemProcess.monotonicNanoseconds() / 1000
        daemon.send(signal: 1)
        let reloading = try listener.next("RELOADING", "1")
        let after = SystemProcess.monotonicNanoseconds() / 1000
        let stamp = try #require(reloading["MONOTONIC_USEC"].flatMap(UInt64.init))
        #expect(stamp >= before && stamp <= after, "MONOTONIC_USEC is CLOCK_MONOTONIC in µs at the reload")
        let ready = try listener.next("READY", "1")
        #expect(ready.receivedAt >= reloading.receivedAt)
        #expect(try daemon.connect().request(Self.increment).seq == 1, "still serving after the reload")
        #expect(try daemon.terminate() == .exited(0))
    }

    @Test("WATCHDOG=1 comes at half of WATCHDOG_USEC, never faster, and keeps coming")
    func watchdogPace() throws {
        let scratch = DaemonScratch()
        let listener = try NotifyListener(scratch: scratch)
        let daemon = try Self.start(listener, scratch: scratch, extra: ["WATCHDOG_USEC": "200000"])
        var pings: [UInt64] = []
        while pings.count < 6 { pings.append(try listener.next("WATCHDOG", "1").receivedAt) }
        // Timers never fire early, so five intervals of 100 ms take at least 500 ms (less 20 ms for when the first
        // one was received).
        #expect(pings.last! - pings.first! >= 480_000_000, "pings at \(pings)")
        #expect(try daemon.terminate() == .exited(0))
    }

    @Test("a loop wedged in update sends no WATCHDOG=1 until it is free again")
    func wedgedLoopStopsPinging() throws {
        let scratch = DaemonScratch()
        let fifo = scratch.file("wedge.fifo")
        let marker = scratch.file("wedged")
        #expect(try DaemonToolRun.run("/usr/bin/mkfifo", [fifo]).exit == .exited(0))
        let listener = try NotifyListener(scratch: scratch)
        let daemon = try Self.start(
            listener, scratch: scratch, extra: ["WATCHDOG_USEC": "100000"],
            program: DaemonSpawn.fixture("mobiusd-fixture-wedge"))
        try listener.next("READY", "1")
        try listener.next("WATCHDOG", "1")
        let client = try daemon.connect()
        try client.send(#"{"type":"wedge","marker":"\#(marker)","fifo":"\#(fifo)"}"#)
        while !FileSystem.exists(marker) { try SystemClock.sleep(nanoseconds: 5_000_000) }
        // The reactor thread is inside update now: whatever it pinged before is queued; nothing may follow.
        try listener.drain()
        try SystemClock.sleep(nanoseconds: 500_000_000)
        let duringWedge = try listener.drain().filter { $0["WATCHDOG"] != nil }
        #expect(duringWedge.isEmpty, "\(duringWedge.count) pings from a wedged loop")
        // Let update finish: open the FIFO for writing and close it.
        try FileDescriptor.create(fifo).close()
        #expect(try client.readReply().seq == 1)
        try listener.next("WATCHDOG", "1")
        #expect(try daemon.terminate() == .exited(0))
    }

    @Test("a malformed WATCHDOG_USEC turns the watchdog off with a warning; the daemon still becomes ready")
    func malformedWatchdog() throws {
        let scratch = DaemonScratch()
        let listener = try NotifyListener(scratch: scratch)
        let daemon = try Self.start(listener, scratch: scratch, extra: ["WATCHDOG_USEC": "soon"])
        try listener.next("READY", "1")
        #expect(try daemon.terminate() == .exited(0))
        #expect(!listener.received.contains { $0["WATCHDOG"] != nil })
        #expect(daemon.standardError.contains("the watchdog is off"), "\(daemon.standardError)")
    }

    @Test("a NOTIFY_SOCKET nobody listens on costs a warning, not the service")
    func missingNotifySocket() throws {
        let scratch = DaemonScratch()
        let daemon = try Self.start(nil, scratch: scratch, extra: ["NOTIFY_SOCKET": scratch.file("nobody.sock")])
        var client: DaemonLineClient?
        for _ in 0..<1000 where client == nil {
            client = try? daemon.connect()
            if client == nil { try SystemClock.sleep(nanoseconds: 5_000_000) }
        }
        #expect(try #require(client).request(Self.increment).seq == 1)
        #expect(try daemon.terminate() == .exited(0))
        #expect(daemon.standardError.contains("cannot tell systemd"), "\(daemon.standardError)")
    }

    @Test("a notify socket nobody reads (its queue full) never holds up the loop")
    func undrainedNotifySocket() throws {
        let scratch = DaemonScratch()
        let listener = try NotifyListener(scratch: scratch)
        let daemon = try Self.start(listener, scratch: scratch, extra: ["WATCHDOG_USEC": "20000"])
        try listener.next("READY", "1")
        // Pings every 10 ms fill the socket's queue (10 datagrams here) within a fraction of a second; a daemon that
        // sent from its loop thread would now be stuck in sendmsg.
        try SystemClock.sleep(nanoseconds: 400_000_000)
        let client = try daemon.connect()
        for expected in 1...3 { #expect(try client.request(Self.increment).seq == Int64(expected)) }
        // Exit waits at most a second for the notify thread, which is stuck behind the full queue.
        #expect(try daemon.terminate() == .exited(0))
    }

    @Test("the largest WATCHDOG_USEC systemd accepts does not overflow; the daemon pings once and serves")
    func hugeWatchdogInterval() throws {
        let scratch = DaemonScratch()
        let listener = try NotifyListener(scratch: scratch)
        let daemon = try Self.start(listener, scratch: scratch, extra: ["WATCHDOG_USEC": "18446744073709551614"])
        try listener.next("READY", "1")
        #expect(listener.received.contains { $0["WATCHDOG"] == "1" }, "the first ping goes out at start")
        #expect(try daemon.connect().request(Self.increment).seq == 1)
        #expect(try daemon.terminate() == .exited(0))
    }
}
