import MobiusJSON
import Testing

@testable import mobiusctl

/// The human-readable rendering and the pretty-printer, called directly.
@Suite struct MobiusctlFormatTests {
    private func json(_ text: String) throws -> JSONValue {
        try JSONValue(parsing: text)
    }

    @Test func prettyPrintsWithTwoSpacesInMemberOrder() throws {
        let value = try json(#"{"z":1,"a":[true,null,{"k":"v\n"}],"e":{},"l":[],"n":1.50}"#)
        #expect(
            PrettyJSON.text(value) == """
                {
                  "z": 1,
                  "a": [
                    true,
                    null,
                    {
                      "k": "v\\n"
                    }
                  ],
                  "e": {},
                  "l": [],
                  "n": 1.50
                }
                """)
        #expect(PrettyJSON.text(7) == "7")
        #expect(PrettyJSON.text("s") == "\"s\"")
    }

    @Test func repliesOfEachCommand() throws {
        #expect(HumanFormat.reply(try json(#"{"ok":true,"seq":5}"#), for: .send(1)).output == ["ok, seq 5"])
        #expect(HumanFormat.reply(try json(#"{"ok":true,"seq":5}"#), for: .ping).output == ["ok, seq 5"])
        let model = HumanFormat.reply(try json(#"{"ok":true,"seq":2,"model":{"a":1}}"#), for: .model(path: nil))
        #expect(model.output == ["seq 2", "{\n  \"a\": 1\n}"])
        let watch = HumanFormat.reply(
            try json(#"{"ok":true,"seq":2,"epoch":"e","model":{"a":1}}"#), for: .watch(path: nil))
        #expect(watch.output == [#"seq 2: {"a":1}"#])
        #expect(HumanFormat.item(try json(#"{"seq":3,"model":[1]}"#), for: .watch(path: nil)).output == ["seq 3: [1]"])
        let monitor = HumanFormat.reply(try json(#"{"ok":true,"seq":4}"#), for: .monitor)
        #expect(monitor == Rendering(output: [], notes: ["monitoring from seq 4; Ctrl-C to stop"]))
    }

    @Test func statusIsAnAlignedFlatListing() throws {
        let status = try json(
            #"{"ok":true,"app":"counter","seq":2,"uptime":75.5,"events":{"accepted":2,"rejected":1},"plugins":{},"rssBytes":12582912}"#
        )
        #expect(
            HumanFormat.reply(status, for: .status).output == [
                "app              counter",
                "seq              2",
                "uptime           1m 15s",
                "events.accepted  2",
                "events.rejected  1",
                "plugins          none",
                "rssBytes         12582912 (12.0 MiB)",
            ])
    }

    @Test func traceItemsAreOneLineEach() throws {
        #expect(
            HumanFormat.item(try json(#"{"trace":"event","seq":3,"event":{"type":"increment"}}"#), for: .monitor).output
                == [#"event  seq 3  {"type":"increment"}"#])
        #expect(
            HumanFormat.item(try json(#"{"trace":"model","seq":3,"model":3}"#), for: .monitor).output
                == ["model  seq 3  3"])
        #expect(
            HumanFormat.item(try json(#"{"trace":"plugin","name":"sound","state":"running"}"#), for: .monitor).output
                == [#"plugin {"name":"sound","state":"running"}"#])
    }

    @Test func logItemsAndEnd() throws {
        let reply = HumanFormat.reply(
            try json(#"{"ok":true,"seq":9,"epoch":"e","from":4,"compacted":true}"#),
            for: .log(since: 3, follow: false, limit: nil))
        #expect(reply.output.isEmpty)
        #expect(reply.notes == ["log from seq 4 (head 9)", "events before that are no longer kept (compacted)"])
        let item = try json(#"{"seq":4,"time":"2026-01-02T03:04:05.678Z","event":{"type":"increment"}}"#)
        #expect(
            HumanFormat.item(item, for: .log(since: nil, follow: false, limit: nil)).output
                == [#"seq 4  2026-01-02T03:04:05.678Z  {"type":"increment"}"#])
        let end = HumanFormat.item(try json(#"{"end":true,"seq":9}"#), for: .log(since: nil, follow: false, limit: nil))
        #expect(end == Rendering(output: [], notes: ["end of log at seq 9"]))
    }

    @Test func errorsNameMessageAndCode() throws {
        let reply = try json(#"{"ok":false,"error":{"code":"InvalidEvent","message":"no such event"},"line":1}"#)
        #expect(HumanFormat.error(reply) == "no such event (InvalidEvent)")
    }

    @Test(arguments: [(0.04, "0.0s"), (4.25, "4.2s"), (187, "3m 7s"), (7205, "2h 0m 5s"), (97_200, "1d 3h 0m")])
    func durations(seconds: Double, text: String) {
        #expect(HumanFormat.duration(seconds) == text)
    }
}
