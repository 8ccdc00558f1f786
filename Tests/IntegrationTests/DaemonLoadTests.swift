import MobiusJSON
import MobiusTestSupport
import Testing

/// docs/protocol.md 1.5 under load: many clients, slow readers, and pipelining clients that never read.
@Suite(.serialized, .timeLimit(.scaled(minutes: 3)))
struct DaemonLoadTests {
    static let increment = #"{"type":"increment"}"#
    static let rssLimit = 64 << 20

    @Test func thousandConcurrentConnectionsEachSendOneEvent() throws {
        let count = 1000
        try DaemonTraffic.raiseOpenFileLimit(to: 2 * count + 200)
        let daemon = try DaemonProcess.start(
            config: #"{"update":{"builtin":"counter"},"socket":{"maxConnections":1100,"maxConnectionsPerUser":1100}}"#)
        var clients: [DaemonLineClient] = []
        for _ in 0..<count { clients.append(try daemon.connect()) }
        let observer = try daemon.connect()
        // All connected at once (the Overloaded line would arrive instead of an ack otherwise).
        for client in clients { try client.send(Self.increment) }
        var seqs: Set<Int64> = []
        for (index, client) in clients.enumerated() {
            let reply = try client.readReply()
            guard reply.isAck, let seq = reply.seq else {
                Issue.record("client \(index): \(reply)")
                continue
            }
            seqs.insert(seq)
        }
        #expect(seqs == Set(1...Int64(count)), "every event acked with its own seq")
        let status = try observer.request("status")
        #expect(status["connections"] == .number(JSONNumber(count + 1)), "\(status)")
        #expect(try observer.request("model").model == .number(JSONNumber(count)))
        for client in clients { client.close() }
        try DaemonTraffic.eventually("the daemon sees the 1000 closes") {
            try observer.request("status")["connections"] == 1
        }
    }

    @Test func slowSubscriberNeverSlowsWritersOrGrowsMemory() throws {
        let daemon = try DaemonProcess.start()
        let subscriber = try daemon.connect()
        #expect(try subscriber.request("subscribe").seq == 0)
        let baseline = try daemon.residentBytes()
        // The subscriber now reads nothing while 100,000 events flow from another connection.
        let writer = try daemon.connect()
        let total = 100_000
        var peak = baseline
        var sent = 0
        var slowest = Duration.zero
        while sent < total {
            let result = try DaemonTraffic.sendIncrements(10_000, on: writer, batch: 1000)
            #expect(result.lastSeq == Int64(sent + 10_000))
            slowest = max(slowest, result.slowestBatch)
            sent += 10_000
            peak = max(peak, try daemon.residentBytes())
        }
        #expect(
            slowest < TestTime.scaled(.seconds(5)),
            "a batch of 1000 acks took \(slowest) while a subscriber did not read")
        #expect(Sanitizer.inflatesMemory || peak < Self.rssLimit, "RSS peaked at \(peak) bytes (baseline \(baseline))")
        let status = try writer.request("status")
        #expect(status["subscribers"] == 1, "the slow subscriber is still subscribed: \(status)")

        // Latest-wins: the subscriber catches up to the newest model without every intermediate one.
        var items = 0
        var last: Int64 = 0
        while last < Int64(total) {
            let item = try subscriber.readReply()
            guard let seq = item.seq, seq > last, item.model?.int64Value == seq else {
                Issue.record("stream item out of order after seq \(last): \(item)")
                return
            }
            last = seq
            items += 1
        }
        #expect(items < total, "got \(items) items for \(total) events: intermediate models were not skipped")
    }

    @Test func stalledSubscriberIsDisconnectedAfterStallTimeout() throws {
        let daemon = try DaemonProcess.start(config: #"{"update":{"builtin":"counter"},"socket":{"stallTimeout":1}}"#)
        let subscriber = try daemon.connect()
        #expect(try subscriber.request("subscribe").seq == 0)
        let writer = try daemon.connect()
        // One event per loop pass, so each is published: enough small model lines (each a kernel buffer of its own)
        // to fill the subscriber's socket, after which its output stays pending without progress.
        try DaemonTraffic.sendIncrements(3000, on: writer, batch: 1)
        try DaemonTraffic.eventually("the stalled subscriber is disconnected", timeout: .seconds(15)) {
            let status = try writer.request("status")
            return status["subscribers"] == 0 && status["connections"] == 1
        }
        // The writer, which reads its replies, is unaffected.
        #expect(try writer.request(Self.increment).seq == 3001)
        // The subscriber stays open (unread) all along: it is the daemon that drops it.
        withExtendedLifetime(subscriber) {}
    }

    @Test func pipeliningClientThatDoesNotReadIsNotBufferedWithoutBound() throws {
        // Small output bound: past 64 KiB of unread replies the daemon stops reading this client.
        let daemon = try DaemonProcess.start(
            config: #"{"update":{"builtin":"counter"},"socket":{"maxOutputBytes":65536}}"#)
        let client = try daemon.connect()
        client.setSendBuffer(bytes: 16384)
        let total = 100_000
        let payload = DaemonTraffic.increments(total)
        var offset = 0
        // Phase 1: write, never read, until the daemon stops taking bytes for a full second.
        while offset < payload.count {
            let written = try client.sendWithoutBlocking(payload[offset...])
            offset += written
            if written == 0 && client.poll(readable: false, writable: true, timeout: .seconds(1)) == 0 { break }
        }
        #expect(offset < payload.count, "the daemon read all \(payload.count) bytes although no reply was read")
        let stalledRSS = try daemon.residentBytes()
        #expect(Sanitizer.inflatesMemory || stalledRSS < Self.rssLimit, "RSS \(stalledRSS) bytes while stalled")
        let other = try daemon.connect()
        let ping = try other.request("ping")
        #expect(ping.ok == true, "other clients are served while this one is stalled: \(ping)")
        #expect((ping.seq ?? 0) < Int64(total), "\(ping)")

        // Phase 2: read the replies (and send the rest): every event is applied once, acks in order.
        var expected: Int64 = 1
        let deadline = ContinuousClock.now + TestTime.scaled(.seconds(60))
        while expected <= Int64(total) && ContinuousClock.now < deadline {
            if offset < payload.count {
                offset += try client.sendWithoutBlocking(payload[offset...])
            }
            for line in try client.readAvailableLines(timeout: .milliseconds(50)) {
                let reply = try DaemonReply(line: line)
                guard reply.isAck && reply.seq == expected else {
                    Issue.record("expected the ack for seq \(expected), got \(reply)")
                    return
                }
                expected += 1
            }
            #expect(!client.sawEndOfFile, "the daemon closed the connection")
            if client.sawEndOfFile { return }
        }
        #expect(expected == Int64(total) + 1, "got \(expected - 1) of \(total) acks")
        let model = try other.request("model")
        #expect(model.seq == Int64(total) && model.model == .number(JSONNumber(total)), "\(model)")
        #expect(try Sanitizer.inflatesMemory || daemon.residentBytes() < Self.rssLimit)
    }

    @Test func pipelinedHundredThousandEventsWithDefaultLimitsStayBounded() throws {
        let daemon = try DaemonProcess.start()
        let client = try daemon.connect()
        let total = 100_000
        // Written from this thread while nothing is read: the daemon may buffer up to maxOutputBytes (8 MiB)
        // of acks, after which it must stop reading rather than grow.
        let payload = DaemonTraffic.increments(total)
        var offset = 0
        var acks: Int64 = 0
        var peak = 0
        let deadline = ContinuousClock.now + TestTime.scaled(.seconds(60))
        while acks < Int64(total) && ContinuousClock.now < deadline {
            if offset < payload.count {
                offset += try client.sendWithoutBlocking(payload[offset...])
                if offset == payload.count { peak = max(peak, try daemon.residentBytes()) }
            }
            // Read only once everything is written, so the daemon holds the replies meanwhile.
            guard offset == payload.count else {
                _ = client.poll(readable: false, writable: true, timeout: .milliseconds(100))
                continue
            }
            for line in try client.readAvailableLines(timeout: .milliseconds(50)) {
                let reply = try DaemonReply(line: line)
                guard reply.isAck, reply.seq == acks + 1 else {
                    Issue.record("expected ack \(acks + 1), got \(reply)")
                    return
                }
                acks += 1
            }
            if client.sawEndOfFile { break }
        }
        #expect(acks == Int64(total))
        #expect(Sanitizer.inflatesMemory || peak < Self.rssLimit, "RSS \(peak) bytes with 100,000 unread acks")
    }
}
