import MobiusJSON
import Testing

/// docs/protocol.md 1.3: every error code the daemon produces today, with its `line`, and the connection afterwards.
@Suite(.serialized, .timeLimit(.scaled(minutes: 3)))
struct DaemonErrorCodeTests {
    static let increment = #"{"type":"increment"}"#

    @Test(arguments: ["{bad", #"{"a":1} x"#, "[1,", #""unterminated"#, "-", "01", "[1]]", "{\"type\":\"increment\"}}"])
    func invalidJSON(line: String) throws {
        let daemon = try DaemonProcess.start()
        let client = try daemon.connect()
        let reply = try client.request(line)
        #expect(reply.ok == false, "\(line) -> \(reply)")
        #expect(reply.errorCode == "InvalidJSON", "\(line) -> \(reply)")
        #expect(reply.lineNumber == 1, "\(line) -> \(reply)")
        #expect(reply.errorMessage?.isEmpty == false, "\(reply)")
        // Not applied, and the connection goes on.
        let model = try client.request("model")
        #expect(model.seq == 0 && model.model == 0, "\(model)")
    }

    @Test(
        arguments: [
            ("invalid byte", Array(#"{"type":"#.utf8) + [0x22, 0xFF, 0x22, 0x7D]),
            ("truncated sequence", Array(#"{"type":"incr"#.utf8) + [0xC3, 0x22, 0x7D]),
            ("overlong slash", Array(#"{"type":""#.utf8) + [0xC0, 0xAF, 0x22, 0x7D]),
            ("surrogate", Array(#"{"type":""#.utf8) + [0xED, 0xA0, 0x80, 0x22, 0x7D]),
            ("NUL in a string", Array(#"{"type":"incr"#.utf8) + [0x00] + Array(#"ement"}"#.utf8)),
            ("NUL after the value", Array(#"{"type":"increment"}"#.utf8) + [0x00]),
            ("invalid byte in a command", Array("model ".utf8) + [0xFF]),
            ("NUL in a command", Array("ping".utf8) + [0x00]),
        ] as [(String, [UInt8])])
    func invalidEncodingLeavesTheConnectionUsable(name: String, bytes: [UInt8]) throws {
        let daemon = try DaemonProcess.start()
        let client = try daemon.connect()
        try client.sendRaw(bytes + [0x0A] + Array((Self.increment + "\n").utf8))
        let error = try client.readReply()
        #expect(error.ok == false, "\(name): \(error)")
        #expect(error.errorCode == "InvalidEncoding", "\(name): \(error)")
        #expect(error.lineNumber == 1, "\(name): \(error)")
        let ack = try client.readReply()
        #expect(ack.isAck && ack.seq == 1, "\(name): the connection must stay usable, got \(ack)")
    }

    @Test func invalidEncodingIsPerLine() throws {
        let daemon = try DaemonProcess.start()
        let client = try daemon.connect()
        var bytes = Array((Self.increment + "\n").utf8)
        bytes += [0xFF, 0xFE, 0x0A]
        bytes += Array((Self.increment + "\n").utf8)
        bytes += [0x00, 0x0A]
        bytes += Array("model\n".utf8)
        try client.sendRaw(bytes)
        #expect(try client.readReply().seq == 1)
        let second = try client.readReply()
        #expect(second.errorCode == "InvalidEncoding" && second.lineNumber == 2, "\(second)")
        #expect(try client.readReply().seq == 2)
        let fourth = try client.readReply()
        #expect(fourth.errorCode == "InvalidEncoding" && fourth.lineNumber == 4, "\(fourth)")
        #expect(try client.readReply().model == 2)
    }

    @Test func validUTF8IsNotAnEncodingError() throws {
        let daemon = try DaemonProcess.start()
        let client = try daemon.connect()
        let ack = try client.request(#"{"type":"increment","note":"héllo ✓ 𝄞"}"#)
        #expect(ack.isAck && ack.seq == 1, "\(ack)")
    }

    // MARK: - LineTooLong

    static let smallLines = #"{"update":{"builtin":"counter"},"socket":{"maxLineBytes":1024}}"#

    /// An increment event padded with spaces inside the object to exactly `size` bytes.
    static func paddedIncrement(size: Int) -> String {
        let core = #"{"type":"increment""#
        return core + String(repeating: " ", count: size - core.utf8.count - 1) + "}"
    }

    @Test func lineOfExactlyMaxLineBytesIsAllowed() throws {
        let daemon = try DaemonProcess.start(config: Self.smallLines)
        let client = try daemon.connect()
        let line = Self.paddedIncrement(size: 1024)
        #expect(line.utf8.count == 1024)
        let ack = try client.request(line)
        #expect(ack.isAck && ack.seq == 1, "\(ack)")
        // `\r\n` does not count towards the limit.
        try client.sendRaw(Array((line + "\r\n").utf8))
        let crlf = try client.readReply()
        #expect(crlf.isAck && crlf.seq == 2, "\(crlf)")
    }

    @Test func lineOneByteTooLongGetsLineTooLongAndTheConnectionCloses() throws {
        let daemon = try DaemonProcess.start(config: Self.smallLines)
        let client = try daemon.connect()
        try client.send(lines: [Self.increment, Self.paddedIncrement(size: 1025), Self.increment])
        let rest = try client.readUntilEndOfFile()
        #expect(rest.count == 2, "\(rest)")
        #expect(rest.first == #"{"ok":true,"seq":1}"#)
        let error = try DaemonReply(line: rest.last ?? "")
        #expect(error.ok == false && error.errorCode == "LineTooLong" && error.lineNumber == 2, "\(error)")
        // The over-long line and everything after it were not applied; the daemon serves others.
        #expect(try daemon.connect().request("model").model == 1)
    }

    @Test func endlessLineWithoutNewlineGetsLineTooLong() throws {
        let daemon = try DaemonProcess.start(config: Self.smallLines)
        let client = try daemon.connect()
        // 64 KiB and no newline: the daemon must not wait for the end of the line.
        try client.sendRaw(Array(repeating: UInt8(ascii: "["), count: 65536))
        let rest = try client.readUntilEndOfFile()
        #expect(rest.count == 1, "\(rest)")
        let error = try DaemonReply(line: rest.first ?? "")
        #expect(error.errorCode == "LineTooLong" && error.lineNumber == 1, "\(error)")
    }

    // MARK: - UnknownCommand, InvalidArgument, Unavailable

    @Test(arguments: ["Ping", "Infinity", "frobnicate", "NaN", "+1", ".5", "@x", "PING", "pingg", "sendx {}"])
    func unknownCommand(line: String) throws {
        let daemon = try DaemonProcess.start()
        let client = try daemon.connect()
        let reply = try client.request(line)
        #expect(reply.ok == false, "\(line) -> \(reply)")
        #expect(reply.errorCode == "UnknownCommand", "\(line) -> \(reply)")
        #expect(reply.lineNumber == 1, "\(line) -> \(reply)")
        #expect(try client.request("ping").ok == true)
    }

    @Test(arguments: [
        "ping 1", "hello {}", "status x", "help me", "quit now", "monitor 1", "model [1]", "model 5",
        #"model {"path":"x"}"#, #"model {"path":1}"#, #"model {"other":"/x"}"#, "model {bad",
        #"subscribe {"path":"x"}"#, "subscribe [1]", "reply maybe", "reply", "reply 1", #"log {"since":-1}"#,
        #"log {"follow":"yes"}"#, "log [1]",
    ])
    func invalidArgument(line: String) throws {
        let daemon = try DaemonProcess.start()
        let client = try daemon.connect()
        let reply = try client.request(line)
        #expect(reply.ok == false, "\(line) -> \(reply)")
        #expect(reply.errorCode == "InvalidArgument", "\(line) -> \(reply)")
        #expect(reply.lineNumber == 1, "\(line) -> \(reply)")
        // A refused `subscribe`/`quit`/`reply` changes nothing: acks still come and nothing streams.
        let writer = try daemon.connect()
        _ = try writer.request(Self.increment)
        let ack = try client.request(Self.increment)
        #expect(ack.line == #"{"ok":true,"seq":2}"#, "after \(line): \(ack)")
    }

    @Test func errorLineNumbersCountEveryKindOfLine() throws {
        let daemon = try DaemonProcess.start(
            config: #"{"update":{"builtin":"counter"},"state":{"logWindowBytes":0}}"#, extraArguments: ["--ephemeral"])
        let client = try daemon.connect()
        try client.send(lines: ["hello", "", Self.increment, "bogus", "ping 1", "{bad", "log"])
        #expect(try client.readReply()["protocol"] == 1)
        #expect(try client.readReply().seq == 1)
        let replies = try (0..<4).map { _ in try client.readReply() }
        #expect(replies.map(\.errorCode) == ["UnknownCommand", "InvalidArgument", "InvalidJSON", "Unavailable"])
        #expect(replies.map(\.lineNumber) == [4, 5, 6, 7])
    }
}
