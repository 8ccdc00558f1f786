import MobiusJSON
import Testing

@testable import MobiusDaemon

/// The `dbus` section of the config (docs/dbus.md): every malformed source is refused with its key named, before
/// anything reaches libdbus; defaults and names as documented.
@Suite("D-Bus config")
struct DBusConfigTests {
    func parse(_ sources: String) throws(ConfigError) -> [DaemonConfig.DBusSource] {
        let json = try! JSONValue(parsing: #"{"dbus":[\#(sources)]}"#)
        return try DaemonConfig(json: json, baseDirectory: "/etc/mobiusd").dbus
    }

    func problem(_ sources: String) -> String? {
        do {
            _ = try parse(sources)
            return nil
        } catch {
            return error.description
        }
    }

    @Test("a full source parses: rule text, initial read typed, limits, names made unique")
    func full() throws {
        let sources = try parse(
            #"""
            {"bus":"system","type":"power","match":{"sender":"org.freedesktop.UPower","path":"/org/freedesktop/UPower",
              "interface":"org.freedesktop.DBus.Properties","member":"PropertiesChanged","arg0":"it's"},
             "initialRead":{"destination":"org.freedesktop.UPower","path":"/org/freedesktop/UPower",
               "interface":"org.freedesktop.DBus.Properties","member":"GetAll","signature":"s",
               "args":["org.freedesktop.UPower"],"timeout":2,"event":{"initial":true}},
             "maxValues":100,"maxStringBytes":1000},
            {"bus":"unix:path=/run/x","type":"power"},
            {"bus":"session","type":"power","name":"third"}
            """#)
        #expect(sources.map(\.name) == ["power", "power-2", "third"])
        #expect(
            sources[0].rule.text
                == "type='signal',sender='org.freedesktop.UPower',path='/org/freedesktop/UPower',"
                + "interface='org.freedesktop.DBus.Properties',member='PropertiesChanged',arg0='it'\\''s'")
        #expect(sources[0].initialRead?.arguments == [.string("org.freedesktop.UPower")])
        #expect(sources[0].initialRead?.timeout == 2)
        #expect(sources[0].initialReadEvent == ["initial": true])
        #expect(sources[0].limits == DBusReadLimits(maxValues: 100, maxStringBytes: 1000))
        #expect(sources[1].rule.text == "type='signal'")
        #expect(sources[1].initialRead == nil)
    }

    @Test(
        "malformed sources name the key",
        arguments: [
            (#"{"type":"t"}"#, "dbus[0].bus: is required: \"system\", \"session\" or an address"),
            (
                #"{"bus":"sytem","type":"t"}"#,
                "dbus[0].bus: must be \"system\", \"session\" or a unix: or tcp: D-Bus address such as \"unix:path=/run/dbus/system_bus_socket\""
            ),
            (
                #"{"bus":"unixexec:path=/bin/sh","type":"t"}"#,
                "dbus[0].bus: must be \"system\", \"session\" or a unix: or tcp: D-Bus address such as \"unix:path=/run/dbus/system_bus_socket\""
            ),
            (#"{"bus":"session","type":""}"#, "dbus[0].type: is required: the event type to produce"),
            (
                #"{"bus":"session","type":"t","match":{"path":"org/x"}}"#,
                "dbus[0].match.path: \"org/x\" is not an object path (/org/example/Object)"
            ),
            (
                #"{"bus":"session","type":"t","initialRead":{"destination":"a.b","path":"//x","member":"M"}}"#,
                "dbus[0].initialRead.path: \"//x\" is not an object path (/org/example/Object)"
            ),
            (
                #"{"bus":"session","type":"t","match":{"interface":"NoDots"}}"#,
                "dbus[0].match.interface: \"NoDots\" is not an interface name (org.example.Iface)"
            ),
            (
                #"{"bus":"session","type":"t","match":{"member":"Has.Dot"}}"#,
                "dbus[0].match.member: \"Has.Dot\" is not a member name (Changed)"
            ),
            (
                #"{"bus":"session","type":"t","match":{"sender":"1.bad"}}"#,
                "dbus[0].match.sender: \"1.bad\" is not a bus name (org.example.Name or :1.42)"
            ),
            (
                #"{"bus":"session","type":"t","match":{"arg64":"x"}}"#,
                "dbus[0].match.arg64: unknown match key (use sender, path, path_namespace, interface, member, arg0…arg63)"
            ),
            (
                #"{"bus":"session","type":"t","match":{"arg0":1}}"#,
                "dbus[0].match.arg0: must be a string, not the number 1"
            ),
            (
                #"{"bus":"session","type":"t","match":{"path":"/a","path_namespace":"/b"}}"#,
                "dbus[0].match.path_namespace: cannot be combined with path"
            ),
            (
                #"{"bus":"session","type":"t","event":[1]}"#,
                "dbus[0].event: must be a JSON object merged into each event"
            ),
            (#"{"bus":"session","type":"t","colour":1}"#, "dbus[0].colour: unknown key"),
            (
                #"{"bus":"session","type":"t","maxValues":0}"#,
                "dbus[0].maxValues: must be an integer from 1 to 16777216"
            ),
            (
                #"{"bus":"session","type":"t","initialRead":{"path":"/x","member":"M"}}"#,
                "dbus[0].initialRead.destination: is required: a bus name (org.example.Service)"
            ),
            (
                #"{"bus":"session","type":"t","initialRead":{"destination":"a.b","path":"/x","member":"M","signature":"u","args":[-1]}}"#,
                "dbus[0].initialRead.args[0]: -1 does not fit uint32 (0…4294967295, whole numbers)"
            ),
            (
                #"{"bus":"session","type":"t","initialRead":{"destination":"a.b","path":"/x","member":"M","signature":"a{"}}"#,
                "dbus[0].initialRead.signature: signature \"a{\" ends inside a container"
            ),
            (
                #"{"bus":"session","type":"t","initialRead":{"destination":"a.b","path":"/x","member":"M","timeout":0}}"#,
                "dbus[0].initialRead.timeout: must be a number of seconds from 0.001 to 3600"
            ),
            (
                #"{"bus":"session","type":"t","name":"a"},{"bus":"session","type":"u","name":"a"}"#,
                "dbus[1].name: must be 1-64 letters, digits, '-', '_' or '.', and not another source's name"
            ),
        ])
    func problems(_ sources: String, _ expected: String) {
        #expect(problem(sources) == expected)
    }
}
