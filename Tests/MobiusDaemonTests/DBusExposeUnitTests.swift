import MobiusJSON
import Testing

@testable import MobiusDaemon

/// The `expose` section of the config and the pieces of the exposure that need no bus (docs/dbus.md, "The model on
/// D-Bus"): every malformed key is refused and named; model values are typed as documented, and a value that does
/// not fit keeps the last good one; the hand-off to the bus thread is latest-wins; foreign reply ids never meet a
/// connection's.
@Suite("D-Bus expose, without a bus")
struct DBusExposeUnitTests {
    func parse(_ expose: String) throws(ConfigError) -> DaemonConfig.Expose? {
        let json = try! JSONValue(parsing: #"{"expose":\#(expose)}"#)
        return try DaemonConfig(json: json, baseDirectory: "/etc/mobiusd").expose
    }

    func problem(_ expose: String) -> String? {
        do {
            _ = try parse(expose)
            return nil
        } catch {
            return error.description
        }
    }

    static let base = #""bus":"system","name":"org.example.DoorLock","path":"/org/example/DoorLock""#

    @Test("a full expose parses, properties in file order")
    func full() throws {
        let expose = try #require(
            try parse(
                #"{\#(Self.base),"properties":{"Locked":{"path":"/locked","type":"b"},"Tries":{"path":"/tries","type":"u"},"#
                    + #""State":{"path":"","type":"s"}}}"#))
        #expect(
            expose.bus == "system" && expose.name == "org.example.DoorLock" && expose.path == "/org/example/DoorLock")
        #expect(expose.properties.map(\.name) == ["Locked", "Tries", "State"])
        #expect(expose.properties.map(\.type) == [.boolean, .uint32, .string])
        #expect(expose.properties[0].pointer == (try JSONPointer("/locked")))
        #expect(try parse(#"{\#(Self.base)}"#)?.properties.isEmpty == true)
    }

    @Test(
        "malformed keys are named",
        arguments: [
            (#"[]"#, "expose: must be a JSON object"),
            (
                #"{"name":"org.a.B","path":"/"}"#,
                "expose.bus: is required: \"system\", \"session\" or a unix: or tcp: D-Bus address such as \"unix:path=/run/dbus/system_bus_socket\""
            ),
            (
                #"{"bus":"unixexec:path=/bin/sh","name":"org.a.B","path":"/"}"#,
                "expose.bus: \"unixexec:path=/bin/sh\" is not \"system\", \"session\" or a unix: or tcp: D-Bus address such as \"unix:path=/run/dbus/system_bus_socket\""
            ),
            (
                #"{"bus":"system","name":":1.5","path":"/"}"#,
                "expose.name: \":1.5\" is not a well-known bus name to own (org.example.DoorLock; not a unique :1.N name, not org.freedesktop.DBus)"
            ),
            (
                #"{"bus":"system","name":"org.freedesktop.DBus","path":"/"}"#,
                "expose.name: \"org.freedesktop.DBus\" is not a well-known bus name to own (org.example.DoorLock; not a unique :1.N name, not org.freedesktop.DBus)"
            ),
            (#"{"bus":"system","name":"org.a.B"}"#, "expose.path: is required: an object path (/org/example/DoorLock)"),
            (
                #"{"bus":"system","name":"org.a.B","path":"/a/"}"#,
                "expose.path: \"/a/\" is not an object path (/org/example/DoorLock)"
            ),
            (#"{"bus":"system","name":"org.a.B","path":"/","extra":1}"#, "expose.extra: unknown key"),
            (
                #"{"bus":"system","name":"org.a.B","path":"/","properties":[]}"#,
                "expose.properties: must be a JSON object"
            ),
            (
                #"{"bus":"system","name":"org.a.B","path":"/","properties":{"9x":{"path":"","type":"s"}}}"#,
                "expose.properties.9x: is not a D-Bus property name (letters, digits and '_', not starting with a digit, at most 255)"
            ),
            (
                #"{"bus":"system","name":"org.a.B","path":"/","properties":{"Seq":{"path":"","type":"t"}}}"#,
                "expose.properties.Seq: is one of org.mobiusd.App1's own properties (Model, Seq, Epoch)"
            ),
            (
                #"{"bus":"system","name":"org.a.B","path":"/","properties":{"A":{"type":"s"}}}"#,
                "expose.properties.A.path: is required: a JSON Pointer into the model (\"/locked\")"
            ),
            (
                #"{"bus":"system","name":"org.a.B","path":"/","properties":{"A":{"path":"a","type":"s"}}}"#,
                "expose.properties.A.path: is not a JSON Pointer: invalid JSON Pointer \"a\": a JSON Pointer must be empty or start with '/' at byte 0"
            ),
            (
                #"{"bus":"system","name":"org.a.B","path":"/","properties":{"A":{"path":"/a"}}}"#,
                "expose.properties.A.type: is required: one D-Bus basic type: y n q i u x t d b s o g (s also takes any value, as its JSON text)"
            ),
            (
                #"{"bus":"system","name":"org.a.B","path":"/","properties":{"A":{"path":"/a","type":"a{sv}"}}}"#,
                "expose.properties.A.type: \"a{sv}\": must be one D-Bus basic type: y n q i u x t d b s o g (s also takes any value, as its JSON text)"
            ),
            (
                #"{"bus":"system","name":"org.a.B","path":"/","properties":{"A":{"path":"/a","type":"h"}}}"#,
                "expose.properties.A.type: \"h\": unix file descriptors cannot be exposed"
            ),
            (
                #"{"bus":"system","name":"org.a.B","path":"/","properties":{"A":{"path":"/a","type":"s","x":1}}}"#,
                "expose.properties.A.x: unknown key"
            ),
        ])
    func malformed(_ expose: String, _ message: String) {
        #expect(problem(expose) == message)
    }

    @Test("at most 128 properties")
    func tooMany() {
        let properties = (0...128).map { #""P\#($0)":{"path":"/p","type":"s"}"# }.joined(separator: ",")
        #expect(
            problem(#"{\#(Self.base),"properties":{\#(properties)}}"#)
                == "expose.properties: has 129 properties; at most 128")
    }

    static func property(_ type: DBusType, _ pointer: String = "/v") -> ExposedProperty {
        ExposedProperty(name: "P", pointer: try! JSONPointer(pointer), type: type)
    }

    @Test(
        "model values are typed like dbus.call arguments; s takes any value as its JSON text",
        arguments: [
            (DBusType.boolean, #"true"#, DBusArgument.boolean(true)),
            (.byte, "255", .byte(255)),
            (.int16, "-32768", .int16(-32768)),
            (.uint16, "65535", .uint16(65535)),
            (.int32, "-5", .int32(-5)),
            (.uint32, "4294967295", .uint32(4_294_967_295)),
            (.int64, "-9223372036854775808", .int64(.min)),
            (.uint64, "18446744073709551615", .uint64(.max)),
            (.double, "2.5", .double(2.5)),
            (.int32, "3.0", .int32(3)),
            (.string, #""front""#, .string("front")),
            (.string, #"{"a":[1,true]}"#, .string(#"{"a":[1,true]}"#)),
            (.string, "null", .string("null")),
            (.string, "7", .string("7")),
            (.objectPath, #""/a/b""#, .objectPath("/a/b")),
            (.signature, #""a{sv}""#, .signature("a{sv}")),
        ])
    func typed(_ type: DBusType, _ json: String, _ expected: DBusArgument) throws {
        let value = try JSONValue(parsing: Array(json.utf8))
        #expect(try ExposedValues.typed(value, as: Self.property(type)).get() == expected)
    }

    @Test(
        "values that do not fit say why",
        arguments: [
            (DBusType.uint32, "-1", "P (/v): -1 does not fit uint32 (0…4294967295, whole numbers)"),
            (.boolean, #""no""#, "P (/v): expected true or false for a boolean"),
            (.int32, "1.5", "P (/v): 1.5 does not fit int32 (-2147483648…2147483647, whole numbers)"),
            (.objectPath, #""a/b""#, "P (/v): \"a/b\" is not an object path"),
            (.string, #""a\u0000b""#, "P (/v): a D-Bus string cannot contain a NUL character"),
            (.double, "null", "P (/v): expected a number for a double"),
        ])
    func misfits(_ type: DBusType, _ json: String, _ message: String) throws {
        let value = try JSONValue(parsing: Array(json.utf8))
        #expect(throws: DBusArgumentError.self) { try ExposedValues.typed(value, as: Self.property(type)).get() }
        if case .failure(let error) = ExposedValues.typed(value, as: Self.property(type)) {
            #expect(error.description == message)
        }
    }

    @Test("text over 64 KiB does not fit; the whole model is named when the pointer is empty")
    func longText() {
        let long = JSONValue.string(String(repeating: "x", count: ExposedValues.maxTextBytes + 1))
        guard case .failure(let error) = ExposedValues.typed(long, as: Self.property(.string, "")) else {
            Issue.record("a long text was taken")
            return
        }
        #expect(error.description == "P (the whole model): 65537 bytes of text, over the 65536 a property takes")
    }

    @Test("a value that stops fitting keeps the last good one, reported once; absent values start at zero")
    func lastGood() throws {
        var values = ExposedValues(properties: [
            ExposedProperty(name: "Count", pointer: try JSONPointer("/count"), type: .uint32),
            ExposedProperty(name: "Path", pointer: try JSONPointer("/path"), type: .objectPath),
        ])
        #expect(values.values == [.uint32(0), .objectPath("/")])
        var (changed, problems) = values.update(from: ["count": 3])
        #expect(changed == [0] && problems.map(\.property) == ["Path"])
        (changed, problems) = values.update(from: ["count": -1])
        #expect(changed.isEmpty && problems.map(\.property) == ["Count"], "Path stays absent: reported once")
        #expect(values.values == [.uint32(3), .objectPath("/")])
        (changed, problems) = values.update(from: ["count": -1])
        #expect(changed.isEmpty && problems.isEmpty)
        (changed, problems) = values.update(from: ["count": 4, "path": "/x"])
        #expect(changed == [0, 1] && problems.isEmpty && values.values == [.uint32(4), .objectPath("/x")])
    }

    @Test("the mailbox is latest-wins for states, and a skipped model change still counts")
    func mailbox() throws {
        let mailbox = try DBusExposureMailbox()
        mailbox.post(DBusExposureMailbox.Committed(seq: 1, model: 1, modelChanged: true))
        mailbox.post(.ack(1), forCall: 7)
        mailbox.post(DBusExposureMailbox.Committed(seq: 2, model: 1, modelChanged: false))
        mailbox.post(.none, forCall: 8)
        let taken = mailbox.take()
        #expect(taken.committed?.seq == 2 && taken.committed?.modelChanged == true)
        #expect(taken.replies.map(\.call) == [7, 8] && !taken.stop && !taken.shuttingDown)
        #expect(mailbox.take().committed == nil)
        mailbox.beginShutdown()
        #expect(mailbox.take().shuttingDown)
        mailbox.stop()
        #expect(mailbox.take().stop)
    }

    @Test("foreign ids carry their number and never name a slot the control server's table can hold")
    func foreignIDs() {
        for number: UInt32 in [0, 1, 0xFFFF_FFFF] {
            let id = ForeignConnectionID.make(number)
            #expect(ForeignConnectionID.number(of: id) == number)
        }
        var table = SlotTable<UInt64>()
        let key = table.insert { $0 }
        #expect(ForeignConnectionID.number(of: key) == nil)
        #expect(table[ForeignConnectionID.make(0)] == nil)
    }

    @Test("an error line becomes org.mobiusd.Error.<Code> with its message")
    func errorLines() {
        let failure = DBusExposureWorker.failure(
            fromErrorLine: JSONLine.error(.storageFailure, "the journal could not be written", line: 1))
        #expect(failure.name == "org.mobiusd.Error.StorageFailure")
        #expect(failure.message == "the journal could not be written")
        #expect(DBusExposureWorker.failure(fromErrorLine: Array("junk".utf8)).name == "org.mobiusd.Error.Internal")
    }

    @Test("paths above the object lead to it")
    func ancestors() {
        #expect(DBusIntrospection.child(of: "/", toward: "/org/example/DoorLock") == "org")
        #expect(DBusIntrospection.child(of: "/org/example", toward: "/org/example/DoorLock") == "DoorLock")
        #expect(DBusIntrospection.child(of: "/org/exam", toward: "/org/example/DoorLock") == nil)
        #expect(DBusIntrospection.child(of: "/org/example/DoorLock", toward: "/org/example/DoorLock") == nil)
        #expect(DBusIntrospection.child(of: "/", toward: "/") == nil)
    }
}
