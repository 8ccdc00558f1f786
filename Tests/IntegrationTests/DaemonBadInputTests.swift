import MobiusJSON
import Testing

/// Hostile input never crashes the daemon or loses an accepted event: afterwards it answers `ping` and the model
/// equals the number of acked increments.
@Suite(.serialized, .timeLimit(.scaled(minutes: 3)))
struct DaemonBadInputTests {
    static let increment = #"{"type":"increment"}"#

    /// The daemon is alive, and its model equals `acked`.
    static func expectHealthy(
        _ daemon: DaemonProcess, acked: Int64, sourceLocation: SourceLocation = #_sourceLocation
    )
        throws
    {
        #expect(daemon.isRunning, "mobiusd died: \(daemon.standardError)", sourceLocation: sourceLocation)
        let client = try daemon.connect()
        let ping = try client.request("ping")
        #expect(ping.ok == true && ping.seq == acked, "\(ping)", sourceLocation: sourceLocation)
        let model = try client.request("model")
        #expect(model.model?.int64Value == acked, "\(model)", sourceLocation: sourceLocation)
    }

    @Test func deeplyNestedArraysAreInvalidJSONNotACrash() throws {
        let daemon = try DaemonProcess.start()
        let client = try daemon.connect()
        _ = try client.request(Self.increment)
        for (open, close) in [("[", "]"), ("{\"a\":", "}")] {
            let deep = String(repeating: open, count: 100_000)
            let reply = try client.request(deep)
            #expect(reply.errorCode == "InvalidJSON", "\(reply)")
            let balanced = String(repeating: open, count: 20_000) + "1" + String(repeating: close, count: 20_000)
            let nested = try client.request(balanced)
            #expect(nested.ok == false && ["InvalidJSON", "InvalidEvent"].contains(nested.errorCode), "\(nested)")
        }
        let deepArgument = try client.request("model {\"path\":" + String(repeating: "[", count: 100_000))
        #expect(deepArgument.errorCode == "InvalidArgument", "\(deepArgument)")
        try Self.expectHealthy(daemon, acked: 1)
    }

    @Test(arguments: [
        "1e999999", "-1e999999", "1e-999999", String(repeating: "9", count: 10_000),
        "-" + String(repeating: "9", count: 10_000), "0." + String(repeating: "1", count: 10_000),
        "123456789012345678901234567890", "18446744073709551616", "-9223372036854775809",
    ])
    func absurdNumbersGetADefinedReply(number: String) throws {
        let daemon = try DaemonProcess.start()
        let client = try daemon.connect()
        let bare = try client.request(number)
        #expect(bare.ok == false && bare.errorCode == "InvalidEvent" && bare.lineNumber == 1, "\(bare)")
        // Inside an otherwise good event the counter ignores the extra member: accepted.
        let inside = try client.request(#"{"type":"increment","n":\#(number)}"#)
        #expect(inside.isAck && inside.seq == 1, "\(inside)")
        let model = try client.request(#"model {"path":""}"#)
        #expect(model.model == 1, "\(model)")
        try Self.expectHealthy(daemon, acked: 1)
    }

    /// Found by the json fuzz target: reading a number with an exponent past 10^18 as an integer trapped.
    @Test func anExponentPastTenToTheEighteenIsAnInvalidArgument() throws {
        let daemon = try DaemonProcess.start()
        let client = try daemon.connect()
        for argument in [#"{"since":1e9999999999999999999}"#, #"{"limit":-1e99999999999999999999}"#] {
            let reply = try client.request("log \(argument)")
            #expect(reply.errorCode == "InvalidArgument" && reply.lineNumber != nil, "\(reply)")
        }
        try Self.expectHealthy(daemon, acked: 0)
    }

    @Test func hugeAndOddStringsAreHandled() throws {
        let daemon = try DaemonProcess.start()
        let client = try daemon.connect()
        let long = String(repeating: "x", count: 500_000)
        let bare = try client.request("\"\(long)\"")
        #expect(bare.errorCode == "InvalidEvent", "\(bare.line.prefix(200))")
        let escapes = try client.request(#"{"type":"increment","s":"\u0000\ud800\udc00\"\\\/\b\f\n\r\t"}"#)
        #expect(escapes.isAck, "\(escapes)")
        let loneSurrogate = try client.request(#"{"type":"increment","s":"\ud800"}"#)
        #expect(loneSurrogate.ok != nil, "a defined reply: \(loneSurrogate)")
        let acked: Int64 = 1 + (loneSurrogate.isAck ? 1 : 0)
        let duplicate = try client.request(#"{"type":"nope","type":"increment"}"#)
        #expect(duplicate.ok != nil, "a defined reply: \(duplicate)")
        try Self.expectHealthy(daemon, acked: acked + (duplicate.isAck ? 1 : 0))
    }

    @Test func binaryGarbageNeverCrashesOrLosesEvents() throws {
        let daemon = try DaemonProcess.start()
        let client = try daemon.connect()
        var random = DaemonSeededRandom(seed: 0x5EED_0001)
        var acked: Int64 = 0
        for round in 0..<20 {
            // ~8 KiB of random bytes with newlines sprinkled in, then an increment and a hello as a marker.
            var garbage: [UInt8] = []
            for _ in 0..<8192 {
                let byte = UInt8(truncatingIfNeeded: random.next())
                garbage.append(random.next() % 64 == 0 ? 0x0A : byte)
            }
            // A random line could spell `quit` or `reply off`: start each line like JSON (or with an invalid byte)
            // so the parser and the UTF-8 check see the garbage, never the command table.
            let starts: [UInt8] = [UInt8(ascii: "{"), UInt8(ascii: "["), UInt8(ascii: "\""), UInt8(ascii: "-"), 0xFF]
            var lines = garbage.split(separator: 0x0A, omittingEmptySubsequences: false).enumerated().map {
                [starts[$0.offset % starts.count]] + $0.element
            }
            lines.append(Array(Self.increment.utf8))
            lines.append(Array("hello".utf8))
            try client.sendRaw(Array(lines.joined(separator: [0x0A])) + [0x0A])
            var gotMarker = false
            while !gotMarker {
                let reply = try client.readReply()
                if reply["protocol"] != nil {
                    gotMarker = true
                } else if reply.isAck {
                    acked += 1
                } else if reply.ok != false || reply.errorCode == nil || reply.lineNumber == nil {
                    Issue.record("round \(round): not an error with a line: \(reply)")
                }
            }
        }
        #expect(acked == 20)
        try Self.expectHealthy(daemon, acked: acked)
    }

    @Test func rawGarbageIncludingCommandLookalikesNeverCrashes() throws {
        let daemon = try DaemonProcess.start()
        var random = DaemonSeededRandom(seed: 0xBAD_F00D)
        for _ in 0..<10 {
            let client = try daemon.connect()
            var bytes: [UInt8] = []
            for _ in 0..<32768 {
                bytes.append(random.next() % 50 == 0 ? 0x0A : UInt8(truncatingIfNeeded: random.next()))
            }
            try? client.sendRaw(bytes)
            client.shutdownWrite()
            // Whatever it answered, it ends the conversation cleanly (or keeps a stream the garbage opened).
            _ = try? client.readUntilEndOfFile(timeout: .seconds(2))
            client.close()
        }
        try Self.expectHealthy(daemon, acked: 0)
    }

    @Test func abruptDisconnectMidLineLosesNothingAcked() throws {
        let daemon = try DaemonProcess.start()
        let steady = try daemon.connect()
        var acked: Int64 = 0
        for index in 0..<50 {
            let rude = try daemon.connect()
            // Half an event, then gone; or a burst of requests and gone before reading any reply.
            if index % 2 == 0 {
                try rude.sendRaw(Array(#"{"type":"incre"#.utf8))
            } else {
                try rude.sendRaw(Array("model\nstatus\nsubscribe\n{\"type\":\"incr".utf8))
            }
            rude.close()
            let ack = try steady.request(Self.increment)
            #expect(ack.isAck, "\(ack)")
            acked += 1
        }
        try Self.expectHealthy(daemon, acked: acked)
        try DaemonTraffic.eventually("the rude connections are gone from status") {
            let status = try steady.request("status")
            return status["connections"] == 1 && status["subscribers"] == 0
        }
    }

    @Test func clientThatDisconnectsWithUnreadRepliesDoesNotHurtOthers() throws {
        let daemon = try DaemonProcess.start()
        let rude = try daemon.connect()
        try rude.sendRaw(DaemonTraffic.increments(20_000))
        // Wait until the daemon has applied all of them, then vanish without reading a single ack.
        let steady = try daemon.connect()
        try DaemonTraffic.eventually("20,000 events applied") { try steady.request("ping").seq == 20_000 }
        rude.close()
        #expect(try steady.request(Self.increment).seq == 20_001)
        try Self.expectHealthy(daemon, acked: 20_001)
    }
}

/// SplitMix64: garbage that is the same on every run.
struct DaemonSeededRandom {
    private var state: UInt64

    init(seed: UInt64) {
        state = seed
    }

    mutating func next() -> UInt64 {
        state &+= 0x9E37_79B9_7F4A_7C15
        var mixed = state
        mixed = (mixed ^ (mixed >> 30)) &* 0xBF58_476D_1CE4_E5B9
        mixed = (mixed ^ (mixed >> 27)) &* 0x94D0_49BB_1331_11EB
        return mixed ^ (mixed >> 31)
    }
}
