import MobiusJSON
import MobiusSystem
import Testing

/// The built-in effects `mobiusd.dbus.call` and `mobiusd.dbus.emit` against a real private bus: typed arguments,
/// replies and errors as events, timeouts, missing names, arguments that do not fit, emitted signals seen by
/// another connection.
@Suite("D-Bus effects", .serialized, .timeLimit(.scaled(minutes: 3)))
struct DBusEffectTests {
    /// Sends `{"type":"do","effect":E}` to the recorder, which emits `E`.
    static func perform(_ client: DaemonLineClient, _ effect: String) throws {
        let reply = try client.request(#"{"type":"do","effect":\#(effect)}"#)
        #expect(reply.ok == true, "\(reply)")
    }

    static func lastEvent(_ client: DaemonLineClient, after count: Int) throws -> JSONValue {
        var event: JSONValue = .null
        try eventually("an event after the request") {
            let events = try DBusSourceTests.events(client)
            guard events.count > count + 1 else { return false }
            event = events.last!
            return true
        }
        return event
    }

    static func daemon(_ bus: PrivateBus) throws -> DaemonProcess {
        try DBusSourceTests.recorder(bus, sources: [])
    }

    @Test("a call with typed arguments: the reply comes back as the event's reply, every type round-trips")
    func typedCall() throws {
        let bus = try PrivateBus()
        _ = try bus.startPeer("serve", name: "service")
        let daemon = try Self.daemon(bus)
        let client = try daemon.connect()
        let args =
            #"["text", 4294967295, -9223372036854775808, 18446744073709551615, {"a": 1, "b": "two"}, [7, 2.5], [0, 255], {"1": true}, true]"#
        try Self.perform(
            client,
            #"{"type":"mobiusd.dbus.call","bus":"\#(bus.address)","destination":"org.mobiusd.TestService","#
                + #""path":"/org/mobiusd/Test","interface":"org.mobiusd.Test","member":"Echo","#
                + #""signature":"suxta{sv}(id)aya{ib}v","args":\#(args),"event":{"type":"echoed"}}"#)
        let event = try Self.lastEvent(client, after: 0)
        #expect(event["type"] == "echoed")
        #expect(event["reply"] == (try JSONValue(parsing: args)), "\(event)")
        #expect(try daemon.terminate() == .exited(0))
    }

    @Test(
        "failures come back as error events: missing name, error reply, timeout, arguments that do not fit",
        arguments: [
            (
                #""destination":"org.mobiusd.Nobody","path":"/x","member":"M""#,
                "org.freedesktop.DBus.Error.ServiceUnknown", "org.mobiusd.Nobody"
            ),
            (
                #""destination":"org.mobiusd.TestService","path":"/org/mobiusd/Test","member":"Fail""#,
                "org.mobiusd.Error.Failed", "as asked"
            ),
            (
                #""destination":"org.mobiusd.TestService","path":"/org/mobiusd/Test","member":"Hang","timeout":0.2"#,
                "org.freedesktop.DBus.Error.NoReply", "no reply"
            ),
            (
                #""destination":"org.mobiusd.TestService","path":"/org/mobiusd/Test","member":"Echo","#
                    + #""signature":"su","args":["ok", 300000000000]"#,
                "org.freedesktop.DBus.Error.InvalidArgs", "args[1]: 300000000000 does not fit uint32"
            ),
            (
                #""destination":"org.mobiusd.TestService","path":"/org/mobiusd/Test","member":"Echo","#
                    + #""signature":"a{sv}","args":[{"k": null}]"#,
                "org.freedesktop.DBus.Error.InvalidArgs", #"args[0]["k"]: null has no D-Bus type"#
            ),
            (
                #""destination":"org.mobiusd.TestService","path":"not/a/path","member":"Echo""#,
                "org.freedesktop.DBus.Error.InvalidArgs", "path: must be an object path"
            ),
            (
                #""destination":"org.mobiusd.TestService","path":"/x","member":"Echo","signature":"a{vs}","args":[{}]"#,
                "org.freedesktop.DBus.Error.InvalidArgs", "a dict key must be a basic type"
            ),
        ])
    func failures(fields: String, name: String, message: String) throws {
        let bus = try PrivateBus()
        _ = try bus.startPeer("serve", name: "service")
        let daemon = try Self.daemon(bus)
        let client = try daemon.connect()
        try Self.perform(
            client, #"{"type":"mobiusd.dbus.call","bus":"\#(bus.address)",\#(fields),"event":{"type":"answer"}}"#)
        let event = try Self.lastEvent(client, after: 0)
        #expect(event["type"] == "answer")
        #expect(event["error"]?["name"]?.stringValue == name, "\(event)")
        #expect(event["error"]?["message"]?.stringValue?.contains(message) == true, "\(event)")
        #expect(try client.request("ping").ok == true)
        #expect(try daemon.terminate() == .exited(0))
    }

    @Test("malformed effects without an event template are logged and counted, never a crash")
    func malformedWithoutTemplate() throws {
        let bus = try PrivateBus()
        let daemon = try Self.daemon(bus)
        let client = try daemon.connect()
        for effect in [
            #"{"type":"mobiusd.dbus.call","bus":"nowhere"}"#,
            #"{"type":"mobiusd.dbus.call","bus":"session","destination":"a.b","path":"/","member":"M","args":[1]}"#,
            #"{"type":"mobiusd.dbus.emit","bus":"\#(bus.address)","path":"/x","interface":"bad","member":"M"}"#,
            #"{"type":"mobiusd.dbus.emit","bus":"\#(bus.address)","path":"/x","interface":"a.b","member":"M","sig":""}"#,
            #"{"type":"mobiusd.dbus.call","bus":"\#(bus.address)","destination":"a.b","path":"/","member":"M","event":1}"#,
        ] {
            try Self.perform(client, effect)
        }
        let status = try client.request("status")
        #expect(status["effects"]?["unhandled"] == 5, "\(status)")
        #expect(daemon.standardError.contains("mobiusd.dbus.call: bus: must be"))
        #expect(daemon.standardError.contains("mobiusd.dbus.emit: sig: unknown member"))
        #expect(try daemon.terminate() == .exited(0))
    }

    @Test("an emitted signal is seen by another connection, with its typed arguments and destination")
    func emit() throws {
        let bus = try PrivateBus()
        let (_, output) = try bus.startPeer("listen", name: "listener")
        let daemon = try Self.daemon(bus)
        let client = try daemon.connect()
        try Self.perform(
            client,
            #"{"type":"mobiusd.dbus.emit","bus":"\#(bus.address)","path":"/org/mobiusd/Test","#
                + #""interface":"org.mobiusd.Test","member":"Changed","signature":"sa{sv}","#
                + #""args":["mode", {"level": 3, "saver": true}]}"#)
        var line: JSONValue = .null
        try eventually("the listener prints the signal") {
            let lines = bus.scratch.read(output.split(separator: "/").last.map(String.init)!)
                .split(separator: "\n").dropFirst()
            guard let first = lines.first else { return false }
            line = try JSONValue(parsing: String(first))
            return true
        }
        #expect(line["member"] == "Changed" && line["signature"] == "sa{sv}")
        #expect(line["args"] == ["mode", ["level": 3, "saver": true]], "\(line)")
        #expect(try daemon.terminate() == .exited(0))
    }
}
