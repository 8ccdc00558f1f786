import MobiusJSON
import Testing

/// Big pipelined writes go to the daemon's parse thread in batches; these check that a batch answers exactly as
/// line-at-a-time handling would: replies in line order, `reply` mode changes mid-batch, `quit`, `LineTooLong` at a
/// small `maxLineBytes`, and `model` requests that must not pile up.
@Suite(.serialized, .timeLimit(.minutes(2)))
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

    @Test func quitInsideABigWriteStopsRightThere() throws {
        let daemon = try DaemonProcess.start()
        let client = try daemon.connect()
        let events = Array(repeating: Self.increment, count: 2000)
        try client.send(lines: events + ["quit"] + events)
        let lines = try client.readUntilEndOfFile()
        #expect(lines.count == 2001, "2000 acks and the quit reply, then EOF")
        #expect(lines.last == #"{"ok":true}"#)
        let observer = try daemon.connect()
        #expect(try observer.request("model").model == 2000, "nothing after quit was applied")
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
