import MobiusJSON
import Testing

/// docs/protocol.md 1.5: read-EOF from a client means "no more requests", not "gone".
@Suite(.serialized, .timeLimit(.scaled(minutes: 3)))
struct DaemonHalfCloseTests {
    static let increment = #"{"type":"increment"}"#

    @Test func eventsThenHalfCloseStillGetEveryReplyThenEOF() throws {
        let daemon = try DaemonProcess.start()
        let client = try daemon.connect()
        let count = 5000
        try client.sendRaw(DaemonTraffic.increments(count) + Array("model\n".utf8))
        client.shutdownWrite()
        let lines = try client.readUntilEndOfFile()
        #expect(lines.count == count + 1)
        let acks = lines.prefix(count).map { try? DaemonReply(line: $0) }
        #expect(acks.enumerated().allSatisfy { $0.element?.isAck == true && $0.element?.seq == Int64($0.offset + 1) })
        #expect(lines.last == #"{"ok":true,"seq":5000,"model":5000}"#)
    }

    @Test func halfCloseWithNothingSentClosesAtOnce() throws {
        let daemon = try DaemonProcess.start()
        let client = try daemon.connect()
        client.shutdownWrite()
        #expect(try client.readUntilEndOfFile() == [])
    }

    @Test func subscriberThatHalfClosesKeepsGettingItems() throws {
        let daemon = try DaemonProcess.start()
        let subscriber = try daemon.connect()
        try subscriber.send("subscribe")
        subscriber.shutdownWrite()
        let first = try subscriber.readReply()
        #expect(first.ok == true && first.seq == 0, "\(first)")
        let writer = try daemon.connect()
        for expected in Int64(1)...3 {
            _ = try writer.request(Self.increment)
            let item = try subscriber.readReply()
            #expect(item.seq == expected && item.model?.int64Value == expected, "\(item)")
        }
        // The daemon counts the half-closed subscriber until the client really closes.
        #expect(try writer.request("status")["subscribers"] == 1)
        subscriber.close()
        try DaemonTraffic.eventually("the subscriber is dropped after the client closes") {
            try writer.request("status")["subscribers"] == 0
        }
    }

    @Test func monitorThatHalfClosesKeepsGettingTraces() throws {
        let daemon = try DaemonProcess.start()
        let monitor = try daemon.connect()
        try monitor.send("monitor")
        monitor.shutdownWrite()
        #expect(try monitor.readReply().ok == true)
        let writer = try daemon.connect()
        _ = try writer.request(Self.increment)
        var sawEvent = false
        while !sawEvent {
            let item = try monitor.readReply()
            sawEvent = item["trace"] == "event" && item.seq == 1
        }
        #expect(sawEvent)
    }

    @Test func halfCloseAfterASubscribeInTheSameBurstStillGetsEarlierReplies() throws {
        let daemon = try DaemonProcess.start()
        let client = try daemon.connect()
        try client.send(lines: [Self.increment, "subscribe", Self.increment])
        client.shutdownWrite()
        #expect(try client.readReply().line == #"{"ok":true,"seq":1}"#)
        let subscribed = try client.readReply()
        #expect(subscribed.ok == true && subscribed.seq == 1 && subscribed.model == 1, "\(subscribed)")
        // Its own later event shows up as an ack and a stream item, in either order.
        let next = try [client.readReply(), client.readReply()].map(\.line).sorted()
        #expect(next == [#"{"ok":true,"seq":2}"#, #"{"seq":2,"model":2}"#].sorted(), "\(next)")
    }
}
