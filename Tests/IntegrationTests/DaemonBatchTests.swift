import MobiusJSON
import Testing

/// Big pipelined writes go to the daemon's parse thread in batches; these check that a batch answers exactly as
/// line-at-a-time handling would: replies in line order, `reply` mode changes mid-batch, `quit`, `LineTooLong` at a
/// small `maxLineBytes`, and `model` requests that must not pile up.
@Suite(.serialized, .timeLimit(.scaled(minutes: 2)))
struct DaemonBatchTests {
    static let increment = #"{"type":"increment"}"#

    /// What one line should get back: an ack with this seq, nothing, or an error with this code.
    enum Expected: Equatable {
        case ack(Int64)
        case error(String, line: Int64)
        case ok
    }

    @Test func bigWriteMixingEventsCommandsAndErrorsIsAnsweredInLineOrder() throws {
        let daemon = try DaemonProcess.start()
        let client = try daemon.connect()
        var lines: [String] = []
        var expected: [Expected] = []
        var seq: Int64 = 0
        var acks = true
        for index in 1...6000 {
            let number = Int64(index)
            switch index {
            case 1500:
                lines.append("reply errors")
                expected.append(.ok)
                acks = false
            case 3000:
                lines.append("reply on")
                expected.append(.ok)
                acks = true
            case _ where index % 701 == 0:
                lines.append("Bogus")
                expected.append(.error("UnknownCommand", line: number))
            case _ where index % 997 == 0:
                lines.append("{x")
                expected.append(.error("InvalidJSON", line: number))
            case _ where index % 1201 == 0:
                lines.append("")
            default:
                lines.append(Self.increment)
                seq += 1
                if acks { expected.append(.ack(seq)) }
            }
        }
        try client.send(lines: lines)
        for (position, want) in expected.enumerated() {
            let reply = try client.readReply()
            switch want {
            case .ack(let number):
                #expect(reply.isAck && reply.seq == number, "reply \(position): \(reply)")
            case .error(let code, let line):
                #expect(reply.errorCode == code && reply.lineNumber == line, "reply \(position): \(reply)")
            case .ok:
                #expect(reply.ok == true, "reply \(position): \(reply)")
            }
            if reply.ok == nil { break }
        }
        let ping = try client.request("ping")
        #expect(ping.seq == seq, "every event of the batch was applied once: \(ping)")
    }

    /// 5,000 events are more than one round's share of a batch (2,048): `quit` waits for the last share.
    @Test(arguments: [2000, 5000])
    func quitInsideABigWriteStopsRightThere(count: Int) throws {
        let daemon = try DaemonProcess.start()
        let client = try daemon.connect()
        let events = Array(repeating: Self.increment, count: count)
        try client.send(lines: events + ["quit"] + events)
        let lines = try client.readUntilEndOfFile()
        #expect(lines.count == count + 1, "\(count) acks and the quit reply, then EOF")
        #expect(lines.last == #"{"ok":true}"#)
        let observer = try daemon.connect()
        #expect(try observer.request("model").model?.int64Value == Int64(count), "nothing after quit was applied")
    }

    /// A write of several batches (30,000 events, 630 KB): a batch goes to the loop a share per round, and the next
    /// goes to the parse thread meanwhile; the `ping`s among them, and the one after, are answered in line order.
    @Test func aWriteOfSeveralBatchesIsAnsweredInLineOrder() throws {
        let daemon = try DaemonProcess.start()
        let client = try daemon.connect()
        var lines: [String] = []
        for index in 1...30_000 {
            lines.append(Self.increment)
            if index % 7000 == 0 { lines.append("ping") }
        }
        lines.append("ping")
        try client.send(lines: lines)
        var seq: Int64 = 0
        for (number, line) in lines.enumerated() {
            let reply = try client.readReply()
            if line == "ping" {
                #expect(reply.ok == true && reply.seq == seq, "line \(number + 1): \(reply)")
            } else {
                seq += 1
                #expect(reply.isAck && reply.seq == seq, "line \(number + 1): \(reply)")
            }
            if reply.ok == false { break }
        }
        #expect(seq == 30_000)
    }

    /// Lines that arrive while a batch is still being handed to the loop wait for it: `ping`s written one by one
    /// once the first of 10,000 events is acked (its batch is back, and goes to the loop a share per round) are
    /// answered after every ack.
    @Test func linesArrivingWhileABatchIsHandedOverWaitForIt() throws {
        // Room for all 10,000 acks (estimated at 1 KiB each), so the daemon goes on reading while it hands over.
        let daemon = try DaemonProcess.start(
            config: #"{"update":{"builtin":"counter"},"socket":{"maxOutputBytes":67108864}}"#)
        let client = try daemon.connect()
        try client.send(lines: Array(repeating: Self.increment, count: 10_000))
        let first = try client.readReply()
        #expect(first.isAck && first.seq == 1, "\(first)")
        for _ in 1...20 { try client.send("ping") }
        for seq in Int64(2)...10_000 {
            let reply = try client.readReply()
            #expect(reply.isAck && reply.seq == seq, "event \(seq): \(reply)")
            if !reply.isAck { break }
        }
        for _ in 1...20 {
            let reply = try client.readReply()
            #expect(reply.ok == true && reply.seq == 10_000, "\(reply)")
        }
    }

    /// Clients that hang up while a batch of theirs is being handed over a share per round: the daemon drops what is
    /// left of it, answers the next client's big write whole, and still shuts down at once (the dropped batches no
    /// longer count as out).
    @Test func clientsHangingUpDuringAHandOverLeaveNothingBehind() throws {
        let daemon = try DaemonProcess.start(
            config: #"{"update":{"builtin":"counter"},"socket":{"maxOutputBytes":67108864}}"#)
        for _ in 1...5 {
            let client = try daemon.connect()
            try client.send(lines: Array(repeating: Self.increment, count: 10_000))
            #expect(try client.readReply().isAck)
            client.close()
        }
        let next = try daemon.connect()
        let before = try #require(next.request("ping").seq)
        #expect(before >= 5 && before <= 50_000, "\(before)")
        try next.send(lines: Array(repeating: Self.increment, count: 10_000) + ["ping"])
        for _ in 1...10_000 { #expect(try next.readReply().isAck) }
        let after = try next.readReply()
        #expect(after.ok == true && after.seq == before + 10_000, "\(after)")
        #expect(try daemon.terminate(timeout: .seconds(5)) == .exited(0))
    }

    @Test func lineTooLongBehindABatchIsStillAnswered() throws {
        let daemon = try DaemonProcess.start(config: #"{"update":{"builtin":"counter"},"socket":{"maxLineBytes":64}}"#)
        let client = try daemon.connect()
        let long = #"{"type":"increment","padding":""# + String(repeating: "x", count: 100) + #""}"#
        try client.send(lines: Array(repeating: Self.increment, count: 500) + [long] + ["ping"])
        let lines = try client.readUntilEndOfFile()
        #expect(lines.count == 501, "500 acks, then LineTooLong, then the connection closes: \(lines.suffix(2))")
        let last = try DaemonReply(line: lines.last ?? "{}")
        #expect(last.errorCode == "LineTooLong" && last.lineNumber == 501, "\(last)")
    }

    @Test func pipelinedModelRequestsAreAnsweredOneModelAtATime() throws {
        let daemon = try DaemonProcess.start(
            config: #"{"update":{"builtin":"store"},"socket":{"maxOutputBytes":65536}}"#)
        let client = try daemon.connect()
        let value = String(repeating: "v", count: 20_000)
        #expect(try client.request(#"{"type":"set","path":"/big","value":"\#(value)"}"#).isAck)
        try client.send(lines: Array(repeating: "model", count: 3000) + ["ping"])
        for index in 0..<3000 {
            let reply = try client.readReply()
            #expect(reply.model?["big"]?.stringValue?.count == 20_000, "model reply \(index)")
            if reply.model == nil { break }
        }
        #expect(try client.readReply().seq == 1, "the ping after them")
    }
}
