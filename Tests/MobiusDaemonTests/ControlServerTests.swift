import MobiusSystem
import Testing

@testable import MobiusDaemon

/// The control server and its connections over socket pairs, with a fake loop (`ServerHarness`): reads that split
/// lines, pipelined lines, a peer that stops reading, one that goes away mid-reply, and one that never reads.
@Suite("ControlServer with fake sockets", .serialized, .timeLimit(.scaled(minutes: 1)))
struct ControlServerTests {
    static let ack1 = #"{"ok":true,"seq":1}"#

    static func settings(maxOutputBytes: Int = 8 << 20) -> ServerSettings {
        var settings = ServerSettings(access: .defaults(daemonUID: SystemProcess.userID))
        settings.maxOutputBytes = maxOutputBytes
        return settings
    }

    @Test("a line split across reads is one request, handed on once its newline is in")
    func lineSplitAcrossReads() throws {
        let harness = try ServerHarness()
        let client = try harness.connect()
        harness.send(#"{"type":"incr"#, from: client)
        harness.run(for: 20_000_000)
        #expect(harness.handed.isEmpty, "half a line is not a request")
        harness.send("ement\"}\n", from: client)
        #expect(
            harness.run {
                client.pump()
                return client.lineCount == 1
            })
        #expect(harness.handed == [#"event {"type":"increment"}"#])
        #expect(client.lines == [Self.ack1])
    }

    @Test(
        "pipelined lines are answered in order: a few on the reactor, thousands through the parse thread",
        arguments: [10, 20_000])
    func pipelined(count: Int) throws {
        let harness = try ServerHarness()
        let client = try harness.connect()
        harness.send(String(repeating: "{\"type\":\"increment\"}\n", count: count) + "ping\n", from: client)
        #expect(
            harness.run {
                client.pump()
                return client.lineCount == count + 1
            })
        let lines = client.lines
        #expect(lines.count == count + 1)
        #expect(Array(lines.prefix(count)) == (1...count).map { "{\"ok\":true,\"seq\":\($0)}" })
        #expect(lines.last?.contains(#""line":\#(count + 1),"request":"ping""#) == true, "\(lines.last ?? "")")
        #expect(harness.server.batchesOut == 0)
    }

    @Test("a peer that stops reading: replies wait in the output buffer, the connection stops reading, and it resumes")
    func peerStopsReadingThenResumes() throws {
        let settings = Self.settings(maxOutputBytes: 64 * 1024)
        let harness = try ServerHarness(settings: settings)
        let client = try harness.connect()
        let connection = try #require(harness.connection(client))
        // The socket takes a few KiB, so writes see EAGAIN at once.
        try connection.fd.setSendBufferSize(4096)
        let count = 400
        harness.send(String(repeating: "status\n", count: count), from: client)
        #expect(harness.run { connection.state.waits.contains(.output) }, "its lines wait for its output to drain")
        #expect(connection.pendingOutputBytes > 0, "what the socket did not take is buffered")
        #expect(connection.pendingOutputBytes + connection.owedBytes < settings.maxOutputBytes + 16 * 1024)
        #expect(!connection.wantsInput(harness.server), "it stops reading its socket")
        // Replies owed when it began to wait may let one more request in as they are answered, then no more.
        harness.run(for: 50_000_000)
        let handedWhilePaused = harness.handed.count
        #expect(handedWhilePaused < count)
        harness.run(for: 50_000_000)
        #expect(harness.handed.count == handedWhilePaused, "no request goes to the loop while its output waits")
        // The peer reads again: every reply arrives, in line order.
        #expect(
            harness.run {
                client.pump()
                return client.lineCount == count
            })
        let lines = client.lines
        #expect(lines.count == count)
        for (index, line) in lines.enumerated() where !line.hasPrefix("{\"ok\":true,\"line\":\(index + 1),") {
            Issue.record("reply \(index + 1) is \(line.prefix(60))")
            break
        }
        #expect(!connection.state.waits.contains(.output))
    }

    @Test("a peer gone mid-reply: the failed write (EPIPE) closes its connection, and others are served")
    func peerGoneMidReply() throws {
        // A small output bound: the connection stops reading, so it does not see the end of file, only the write
        // that fails.
        let harness = try ServerHarness(settings: Self.settings(maxOutputBytes: 64 * 1024))
        let client = try harness.connect()
        let connection = try #require(harness.connection(client))
        try connection.fd.setSendBufferSize(4096)
        harness.send(String(repeating: "status\n", count: 50), from: client)
        #expect(harness.run { connection.state.waits.contains(.output) }, "the socket is full, and reading paused")
        // Everything that arrived is read first: closing with unread bytes would reset the connection (EPOLLERR),
        // and the server would close it for that rather than for its failed write.
        #expect(client.pump() > 0, "part of a reply arrived")
        client.close()
        #expect(harness.run { harness.connection(client) == nil }, "its connection is closed")
        #expect(!connection.state.isOpen)
        #expect(harness.server.connectionCount == 0)
        let other = try harness.connect()
        harness.send("ping\n", from: other)
        #expect(
            harness.run {
                other.pump()
                return other.lineCount == 1
            })
        #expect(other.lines.first?.contains(#""request":"ping""#) == true)
    }

    @Test("a peer that pipelines and never reads costs at most maxOutputBytes plus one reply; the rest stays unread")
    func peerNeverReads() throws {
        let settings = Self.settings(maxOutputBytes: 256 * 1024)
        let harness = try ServerHarness(settings: settings)
        let client = try harness.connect()
        let connection = try #require(harness.connection(client))
        try connection.fd.setSendBufferSize(4096)
        let lines = Array(String(repeating: "status\n", count: 200_000).utf8)[...]
        var sent = 0
        for _ in 0..<100 {
            sent += client.sendSome(lines.dropFirst(sent))
            harness.run(for: 2_000_000)
        }
        // `status` is owed as 16 KiB at most (RequestInterpreter.replyEstimate).
        #expect(connection.pendingOutputBytes + connection.owedBytes < settings.maxOutputBytes + 16 * 1024)
        #expect(sent < lines.count, "the kernel pushes back on the peer")
        #expect(harness.handed.count < 1000, "\(harness.handed.count) requests went to the loop")
        #expect(connection.unconsumedInput <= 2 * ControlServer.batchBytes, "read input is bounded too")
        #expect(connection.state.waits.contains(.output))
    }

    @Test("a line over maxLineBytes is answered LineTooLong and ends the connection's requests")
    func lineTooLong() throws {
        var settings = Self.settings()
        settings.maxLineBytes = 64
        let harness = try ServerHarness(settings: settings)
        let client = try harness.connect()
        harness.send("ping\n" + String(repeating: "x", count: 100) + "\nping\n", from: client)
        #expect(
            harness.run {
                client.pump()
                return client.atEnd
            })
        #expect(harness.handed == ["request ping", "rejected LineTooLong"])
        #expect(client.lines.count == 2)
        #expect(client.lines.last?.contains("line 2 is longer than maxLineBytes (64 bytes)") == true)
    }
}

/// A connection's lifecycle as values: each transition and what it tells the server to do.
@Suite("Connection state")
struct ConnectionStateTests {
    @Test("waiting for room asks the loop once, and room resumes the connection unless it closed")
    func room() {
        var state = ConnectionState()
        #expect(state.takesRequests)
        var action = state.waitForRoom()
        #expect(action == .askForRoom)
        action = state.waitForRoom()
        #expect(action == .none, "asked once")
        action = state.waitForOutput()
        #expect(action == .joinOutputWaiters)
        #expect(state.waits == [.room, .output])
        action = state.roomArrived()
        #expect(action == .resume)
        #expect(state.waits == [.output])
        var closed = state.close()
        #expect(closed)
        closed = state.close()
        #expect(!closed, "closed once")
        action = state.roomArrived()
        #expect(action == .none)
        action = state.outputWaitEnded()
        #expect(action == .none)
    }

    @Test("draining takes no more requests and forgets what waited; only an open connection drains")
    func draining() {
        var state = ConnectionState()
        _ = state.waitForOutput()
        state.drain()
        #expect(state.phase == .draining)
        #expect(!state.takesRequests)
        #expect(state.waits.isEmpty)
        let action = state.waitForRoom()
        #expect(action == .none)
        let closed = state.close()
        #expect(closed)
        state.drain()
        #expect(state.phase == .closed)
    }

    @Test("batches: one out at a time, the next may go while one is handed over, and an empty one skips a turn")
    func batches() {
        var state = ConnectionState()
        var may = state.mayBatch()
        #expect(may)
        state.batchSent()
        #expect(state.batching == .out && state.isBatchOut)
        may = state.mayBatch()
        #expect(!may, "one batch out at a time")
        var earlier = state.batchCameBack()
        #expect(!earlier, "no batch before it")
        #expect(state.batching == .handingOver && state.isHandingOver && !state.isBatchOut)
        may = state.mayBatch()
        #expect(may)
        state.batchSent()
        #expect(state.batching == .handingOverNextOut && state.isBatchOut && state.isHandingOver)
        var goOn = state.handedOver(empty: false)
        #expect(!goOn, "the next batch is still out")
        #expect(state.batching == .out)
        state.batchSent()
        #expect(state.batching == .out)
        _ = state.batchCameBack()
        state.batchSent()
        earlier = state.batchCameBack()
        #expect(earlier, "the batch before it is still being handed over")
        goOn = state.handedOver(empty: true)
        #expect(goOn)
        #expect(state.batching == .inlineOnce)
        may = state.mayBatch()
        #expect(!may, "the next line is the reactor's")
        #expect(state.batching == .inline)
        may = state.mayBatch()
        #expect(may)
    }

    @Test("the flush list holds a connection once per round")
    func flushList() {
        var state = ConnectionState()
        var queued = state.queueForFlush()
        #expect(queued)
        queued = state.queueForFlush()
        #expect(!queued)
        state.flushDequeued()
        queued = state.queueForFlush()
        #expect(queued)
    }
}
