import MobiusJSON
import Testing

/// docs/protocol.md 1.1/1.2: event lines and line framing on the real control socket.
@Suite(.serialized, .timeLimit(.scaled(minutes: 3)))
struct DaemonEventLineTests {
    static let increment = #"{"type":"increment"}"#

    @Test func incrementsAreAckedWithConsecutiveSeqs() throws {
        let daemon = try DaemonProcess.start()
        let client = try daemon.connect()
        for expected in Int64(1)...5 {
            let reply = try client.request(Self.increment)
            #expect(reply.isAck, "\(reply)")
            #expect(reply.seq == expected, "\(reply)")
        }
    }

    @Test func modelAfterEventsOnTheSameConnectionSeesThem() throws {
        let daemon = try DaemonProcess.start()
        let client = try daemon.connect()
        // Pipelined without waiting for acks: `model` must still see all three.
        try client.send(lines: [Self.increment, Self.increment, Self.increment, "model"])
        for expected in Int64(1)...3 {
            #expect(try client.readReply().seq == expected)
        }
        let model = try client.readReply()
        #expect(model.ok == true)
        #expect(model.seq == 3)
        #expect(model.model == 3)
    }

    @Test(arguments: [
        #"{"type":"nope"}"#, "{}", "[1,2]", "[]", #""increment""#, "42", "-1.5e3", "0", "true", "false", "null",
    ])
    func everyJSONValueIsAnEventAndTheCounterRejectsOthers(line: String) throws {
        let daemon = try DaemonProcess.start()
        let client = try daemon.connect()
        let reply = try client.request(line)
        #expect(reply.ok == false, "\(line) -> \(reply)")
        #expect(reply.errorCode == "InvalidEvent", "\(line) -> \(reply)")
        #expect(reply.lineNumber == 1, "\(line) -> \(reply)")
        let status = try client.request("status")
        #expect(status["events"]?["rejected"] == 1, "\(status)")
        #expect(status["events"]?["accepted"] == 0, "\(status)")
    }

    @Test func rejectedEventsCarryTheirLineNumbers() throws {
        let daemon = try DaemonProcess.start()
        let client = try daemon.connect()
        try client.send(lines: [Self.increment, "[1]", #""x""#, Self.increment, "true"])
        #expect(try client.readReply().seq == 1)
        let second = try client.readReply()
        #expect(second.errorCode == "InvalidEvent" && second.lineNumber == 2, "\(second)")
        let third = try client.readReply()
        #expect(third.errorCode == "InvalidEvent" && third.lineNumber == 3, "\(third)")
        #expect(try client.readReply().seq == 2)
        let fifth = try client.readReply()
        #expect(fifth.errorCode == "InvalidEvent" && fifth.lineNumber == 5, "\(fifth)")
    }

    @Test func sendCommandIsTheSameAsABareLine() throws {
        let daemon = try DaemonProcess.start()
        let client = try daemon.connect()
        let ack = try client.request("send " + Self.increment)
        #expect(ack.isAck && ack.seq == 1, "\(ack)")
        let spaced = try client.request("send   \t" + Self.increment + "  ")
        #expect(spaced.isAck && spaced.seq == 2, "\(spaced)")
        let rejected = try client.request("send [1]")
        #expect(rejected.errorCode == "InvalidEvent" && rejected.lineNumber == 3, "\(rejected)")
        let broken = try client.request("send {bad")
        #expect(broken.errorCode == "InvalidJSON" && broken.lineNumber == 4, "\(broken)")
        #expect(try client.request("model").model == 2)
    }

    @Test func crlfLineEndingsAreAccepted() throws {
        let daemon = try DaemonProcess.start()
        let client = try daemon.connect()
        try client.sendRaw(
            Array((Self.increment + "\r\n" + "send " + Self.increment + "\r\nmodel\r\nping\r\n{bad\r\n").utf8))
        #expect(try client.readReply().seq == 1)
        #expect(try client.readReply().seq == 2)
        let model = try client.readReply()
        #expect(model.model == 2, "\(model)")
        let ping = try client.readReply()
        #expect(ping.ok == true && ping.seq == 2, "\(ping)")
        let error = try client.readReply()
        #expect(error.errorCode == "InvalidJSON" && error.lineNumber == 5, "\(error)")
    }

    @Test func blankLinesAreIgnoredButCounted() throws {
        let daemon = try DaemonProcess.start()
        let client = try daemon.connect()
        // Lines 1-4 are blank (empty, spaces, tab, CR only); line 5 is the first that gets a reply.
        try client.sendRaw(Array("\n   \n\t\n\r\n{bad\n\n".utf8) + Array((Self.increment + "\n   \nfrobnicate\n").utf8))
        let error = try client.readReply()
        #expect(error.errorCode == "InvalidJSON", "\(error)")
        #expect(error.lineNumber == 5, "\(error)")
        let ack = try client.readReply()
        #expect(ack.isAck && ack.seq == 1, "\(ack)")
        let unknown = try client.readReply()
        #expect(unknown.errorCode == "UnknownCommand", "\(unknown)")
        #expect(unknown.lineNumber == 9, "\(unknown)")
    }

    @Test func leadingAndTrailingWhitespaceIsIgnored() throws {
        let daemon = try DaemonProcess.start()
        let client = try daemon.connect()
        let ack = try client.request("  \t" + Self.increment + " \t ")
        #expect(ack.isAck && ack.seq == 1, "\(ack)")
        let model = try client.request("   model   ")
        #expect(model.model == 1, "\(model)")
    }

    @Test func finalLineWithoutNewlineBeforeEOFIsProcessed() throws {
        let daemon = try DaemonProcess.start()
        let client = try daemon.connect()
        try client.sendRaw(Array((Self.increment + "\n" + Self.increment).utf8))
        client.shutdownWrite()
        let lines = try client.readUntilEndOfFile()
        #expect(lines == [#"{"ok":true,"seq":1}"#, #"{"ok":true,"seq":2}"#])
        #expect(try daemon.connect().request("model").model == 2)
    }

    @Test func finalCommandWithoutNewlineBeforeEOFIsProcessed() throws {
        let daemon = try DaemonProcess.start()
        let client = try daemon.connect()
        try client.sendRaw(Array("hello".utf8))
        client.shutdownWrite()
        let lines = try client.readUntilEndOfFile()
        #expect(lines.count == 1, "\(lines)")
        let hello = try DaemonReply(line: lines.first ?? "")
        #expect(hello["protocol"] == 1, "\(hello)")
    }

    @Test func eventsFromSeveralConnectionsShareOneSeqSequence() throws {
        let daemon = try DaemonProcess.start()
        let first = try daemon.connect()
        let second = try daemon.connect()
        #expect(try first.request(Self.increment).seq == 1)
        #expect(try second.request(Self.increment).seq == 2)
        #expect(try first.request(Self.increment).seq == 3)
        // `model`, `hello`, `ping` report the seq of the last applied event, on any connection.
        #expect(try second.request("ping").seq == 3)
        #expect(try second.request("hello").seq == 3)
    }

    @Test func decrementAtZeroIsAcceptedButLeavesTheModel() throws {
        let daemon = try DaemonProcess.start()
        let client = try daemon.connect()
        let ack = try client.request(#"{"type":"decrement"}"#)
        #expect(ack.isAck && ack.seq == 1, "\(ack)")
        #expect(try client.request("model").model == 0)
        #expect(try client.request(Self.increment).seq == 2)
        #expect(try client.request(#"{"type":"decrement"}"#).seq == 3)
        let model = try client.request("model")
        #expect(model.model == 0 && model.seq == 3, "\(model)")
    }
}
