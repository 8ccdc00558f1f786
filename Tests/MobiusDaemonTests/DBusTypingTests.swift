import MobiusJSON
import Testing

@testable import MobiusDaemon

/// Signatures, names, match rules and JSON-to-D-Bus typing, in Swift before libdbus sees anything: libdbus treats
/// a bad name or type as a programmer error, so every bad input must be refused here, naming where it is.
@Suite("D-Bus typing")
struct DBusTypingTests {
    @Test("signatures parse into complete types and back")
    func signatures() throws {
        for text in ["", "y", "sa{sv}as", "(i(sd)av)", "a{oa{sa{sv}}}", "aay", "h"] {
            #expect(try DBusSignature.parse(text).map(\.signature).joined() == text)
        }
        #expect(try DBusSignature.parse("a{sv}") == [.dictionary(key: .string, value: .variant)])
    }

    @Test(
        "malformed signatures are refused with the reason",
        arguments: [
            ("a", "ends inside a container"), ("(", "a struct is not closed"), ("()", "empty struct"),
            ("a{vs}", "a dict key must be a basic type"), ("{ss}", "is not a D-Bus type code"),
            ("a{sss}", "exactly a key and a value"), ("z", "is not a D-Bus type code"),
            (String(repeating: "a", count: 33) + "y", "nests arrays deeper than 32"),
            (
                String(repeating: "(", count: 33) + "y" + String(repeating: ")", count: 33),
                "nests structs deeper than 32"
            ),
            (String(repeating: "y", count: 256), "longer than 255 bytes"),
        ])
    func badSignatures(_ text: String, _ reason: String) {
        do {
            _ = try DBusSignature.parse(text)
            Issue.record("\(text) parsed")
        } catch {
            #expect(error.description.contains(reason), "\(error)")
        }
    }

    @Test("names and paths follow the specification")
    func names() {
        #expect(DBusNames.isObjectPath("/") && DBusNames.isObjectPath("/org/a_1/B"))
        #expect(!DBusNames.isObjectPath("") && !DBusNames.isObjectPath("/a/") && !DBusNames.isObjectPath("/a//b"))
        #expect(!DBusNames.isObjectPath("/a-b") && !DBusNames.isObjectPath("a/b"))
        // Found by the dbus fuzz target: libdbus aborts the process on a path whose first element is empty.
        #expect(!DBusNames.isObjectPath("//a") && !DBusNames.isObjectPath("//") && !DBusNames.isObjectPath("//a/b"))
        #expect(
            DBusNames.isInterface("org.freedesktop.DBus") && !DBusNames.isInterface("org")
                && !DBusNames.isInterface("a..b"))
        #expect(!DBusNames.isInterface("org.1a") && !DBusNames.isInterface(String(repeating: "a.", count: 128) + "a"))
        #expect(DBusNames.isMember("PropertiesChanged") && !DBusNames.isMember("") && !DBusNames.isMember("9x"))
        #expect(DBusNames.isBusName(":1.42") && DBusNames.isBusName("org.free-desktop.A") && !DBusNames.isBusName("a"))
        #expect(!DBusNames.isBusName("org.1x") && DBusNames.isBusName(":1.1x"))
        #expect(
            DBusNames.isBus("system") && DBusNames.isBus("unix:path=/run/x,guid=1")
                && DBusNames.isBus("tcp:host=h,port=1;unix:path=/x"))
        #expect(
            !DBusNames.isBus("sytem") && !DBusNames.isBus("unix:path") && !DBusNames.isBus(":path=/x")
                && !DBusNames.isBus("unix:path="))
    }

    @Test("a rule re-checks messages: sender by owner, path namespace, member, string arguments")
    func matching() throws {
        let rule = try DBusMatchRule(
            fields: [
                ("sender", "org.example.Svc"), ("path_namespace", "/org/example"), ("member", "Changed"),
                ("arg1", "on"),
            ],
            key: { $0 })
        var header = DBusSignalHeader(
            sender: ":1.7", path: "/org/example/Dev", interface: "org.example.I", member: "Changed",
            stringArguments: [nil, "on"])
        #expect(rule.matches(header, senderOwner: ":1.7"))
        #expect(!rule.matches(header, senderOwner: ":1.8"), "another owner")
        #expect(!rule.matches(header, senderOwner: nil), "owner not known")
        header.path = "/org/examples"
        #expect(!rule.matches(header, senderOwner: ":1.7"), "a namespace is whole elements")
        header.path = "/org/example"
        header.stringArguments = [nil, nil]
        #expect(!rule.matches(header, senderOwner: ":1.7"), "arg1 is not a string")
        header.stringArguments = ["x"]
        #expect(!rule.matches(header, senderOwner: ":1.7"), "no arg1")
        #expect(DBusMatchRule().matches(header, senderOwner: nil), "an empty rule takes every signal")
        #expect(DBusMatchRule.quote("a'b") == #"'a'\''b'"#)
    }

    @Test("JSON typed by a signature: ranges, dict keys, structs, explicit and inferred variants")
    func typing() throws {
        let values = try JSONValue(
            parsing:
                #"[255, -32768, 18446744073709551615, 2.5, "s", {"1": [true, "x"]}, {"signature":"u","value":7}, [1, 2.5, "x", {"k": [false]}]]"#
        )
        let typed = try DBusArgument.list(values.arrayValue!, signature: "yntdsa{q(bs)}vv")
        #expect(typed[0] == .byte(255) && typed[1] == .int16(-32768) && typed[2] == .uint64(.max))
        #expect(
            typed[5]
                == .dictionary(
                    key: .uint16, value: .structure([.boolean, .string]),
                    [(.uint16(1), .structure([.boolean(true), .string("x")]))]))
        #expect(typed[6] == .variant(.uint32, .uint32(7)))
        let inferred: [DBusArgument] = [
            .variant(.int64, .int64(1)), .variant(.double, .double(2.5)), .variant(.string, .string("x")),
            .variant(
                .dictionary(key: .string, value: .variant),
                .dictionary(
                    key: .string, value: .variant,
                    [
                        (
                            .string("k"),
                            .variant(.array(.variant), .array(.variant, [.variant(.boolean, .boolean(false))]))
                        )
                    ])),
        ]
        #expect(typed[7] == .variant(.array(.variant), .array(.variant, inferred)))
        do {
            _ = try DBusArgument.list([[1, 2.5, "x", ["k": nil]]], signature: "v")
            Issue.record("null typed")
        } catch {
            #expect(error.description == #"args[0][3]["k"]: null has no D-Bus type"#)
        }
    }

    @Test(
        "values that do not fit name the argument",
        arguments: [
            (#"[256]"#, "y", "args[0]: 256 does not fit byte (uint8) (0…255, whole numbers)"),
            (#"[1.5]"#, "i", "args[0]: 1.5 does not fit int32 (-2147483648…2147483647, whole numbers)"),
            (#"["1"]"#, "x", "args[0]: expected a whole number for int64"),
            (#"[1]"#, "b", "args[0]: expected true or false for a boolean"),
            (#"["a\u0000b"]"#, "s", "args[0]: a D-Bus string cannot contain a NUL character"),
            (#"["x"]"#, "o", "args[0]: \"x\" is not an object path"),
            (#"["//x"]"#, "o", "args[0]: \"//x\" is not an object path"),
            (#"["a{"]"#, "g", "args[0]: signature \"a{\" ends inside a container"),
            (#"[3]"#, "h", "args[0]: unix file descriptors cannot be sent from mobiusd"),
            (#"[[1, 2]]"#, "(i)", "args[0]: expected an array of 1 values for the struct (i)"),
            (#"[{"x": 1}]"#, "a{ii}", #"args[0]["x"]: the key must be a number for int32"#),
            (#"[1, 2]"#, "i", "args: signature \"i\" takes 1 argument(s), got 2"),
            (#"[{"signature":"uu","value":1}]"#, "v", "args[0]: signature \"uu\" must be exactly one complete type"),
        ])
    func misfits(_ values: String, _ signature: String, _ message: String) throws {
        let json = try JSONValue(parsing: values).arrayValue!
        do {
            _ = try DBusArgument.list(json, signature: signature)
            Issue.record("\(values) fitted \(signature)")
        } catch {
            #expect(error.description == message)
        }
    }

    @Test("JSON nested past D-Bus's limit is refused before it is sent (the bus would drop the connection)")
    func depth() throws {
        var value: JSONValue = 1
        for _ in 0..<40 { value = [value] }
        do {
            _ = try DBusArgument.list([value], signature: "v")
            Issue.record("40 levels of variants were typed")
        } catch {
            #expect(error.problem.contains("nests deeper than D-Bus allows (32 levels)"))
        }
    }
}
