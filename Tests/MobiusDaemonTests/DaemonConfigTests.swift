import MobiusJSON
import Testing

@testable import MobiusDaemon

@Suite("Config file parsing (docs/protocol.md 6)")
struct DaemonConfigTests {
    func parse(_ text: String, base: String = "/etc/mobiusd") throws(ConfigError) -> DaemonConfig {
        try DaemonConfig(json: try! JSONValue(parsing: text), baseDirectory: base)
    }

    func problem(_ text: String) -> String? {
        do {
            _ = try parse(text)
            return nil
        } catch {
            return error.description
        }
    }

    @Test("the documented example parses, with relative paths resolved against the file's directory")
    func example() throws {
        let config = try parse(
            """
            {"app":"counter","model":0,"update":{"builtin":"counter"},
             "plugins":{"sound":{"exec":["./plugins/beep.py","--quiet"],"options":{},"env":{"A":"1"},"timeout":30,
               "concurrency":64,"onError":{"type":"effectFailed"},
               "restart":{"initialDelay":0.1,"maxDelay":30,"burst":5,"interval":60}}},
             "dbus":[{"bus":"session","type":"ping","match":{"interface":"org.example.Test","member":"Ping"},
               "event":{"source":"test-bus"}}],
             "socket":{"path":"run/counter.sock","mode":"0600","group":null,"maxLineBytes":4096,
               "maxOutputBytes":65536,"maxConnections":10,"maxConnectionsPerUser":2,"stallTimeout":5},
             "access":{"read":["*"],"write":["root"]},
             "state":{"directory":"state","fsync":"batch"}}
            """)
        #expect(config.app == "counter")
        #expect(config.update == .builtin("counter"))
        #expect(config.socketPath == "/etc/mobiusd/run/counter.sock")
        #expect(config.socketMode == 0o600)
        #expect(config.maxLineBytes == 4096)
        #expect(config.maxConnectionsPerUser == 2)
        #expect(config.stallTimeout == 5)
        #expect(config.stateDirectory == "/etc/mobiusd/state")
        #expect(config.fsync == .batch)
        #expect(config.plugins.first?.plugin.exec == ["/etc/mobiusd/plugins/beep.py", "--quiet"])
        #expect(config.plugins.first?.plugin.restart.burst == 5)
        #expect(config.dbus.first?.match.map(\.0) == ["interface", "member"])
        #expect(config.accessWrite == ["root"])
    }

    @Test("updateTimeout is 5 s unless the plugin's entry sets it")
    func updateTimeout() throws {
        let config = try parse(#"{"plugins":{"a":{"exec":["x"]},"b":{"exec":["x"],"updateTimeout":0.25}}}"#)
        #expect(config.plugins.map(\.plugin.updateTimeout) == [5, 0.25])
    }

    @Test("a plugin's env values that start with ./ or ../ resolve against the config file, as exec paths do")
    func envPathsResolveLikeExec() throws {
        let config = try parse(
            #"""
            {"plugins":{"p":{"exec":["./p.py"],"env":{"PYTHONPATH":"../sdk:./lib:/opt/x:","HERE":".","UP":"..",
              "MODE":"fast","URL":"http://example.org/a/./b","NAME":"lib/x",".x":"./y/"}}}}
            """#)
        let env = try #require(config.plugins.first?.plugin.env)
        #expect(env.map(\.0) == ["PYTHONPATH", "HERE", "UP", "MODE", "URL", "NAME", ".x"])
        #expect(
            env.map(\.1) == [
                "/etc/mobiusd/../sdk:/etc/mobiusd/lib:/opt/x:", "/etc/mobiusd", "/etc/mobiusd/..", "fast",
                "http://example.org/a/./b", "lib/x", "/etc/mobiusd/y",
            ])
    }

    @Test(
        "problems name the key",
        arguments: [
            (#"{"bogus":1}"#, "bogus: unknown key"),
            (#"{"socket":{"bogus":1}}"#, "socket.bogus: unknown key"),
            (#"{"socket":{"mode":"rw"}}"#, "socket.mode: must be an octal string like \"0660\""),
            (#"{"socket":{"maxConnections":0}}"#, "socket.maxConnections: must be an integer from 1 to 1000000"),
            (#"{"socket":{"stallTimeout":-1}}"#, "socket.stallTimeout: must be a number of seconds from 0.1 to 86400"),
            (#"{"update":{"builtin":"a","plugin":"b"}}"#, "update: must have exactly one of \"builtin\" or \"plugin\""),
            (#"{"state":{"fsync":"sometimes"}}"#, "state.fsync: must be \"always\", \"batch\" or \"never\""),
            (#"{"access":{"read":[1]}}"#, "access.read[0]: must be a string"),
            (
                #"{"plugins":{"p":{"exec":["x"],"crashesPerEvent":1e300}}}"#,
                "plugins.p.crashesPerEvent: must be an integer from 1 to 100"
            ),
            (
                #"{"plugins":{"p":{"exec":["x"],"crashesPerEvent":-1}}}"#,
                "plugins.p.crashesPerEvent: must be an integer from 1 to 100"
            ),
            (
                #"{"plugins":{"p":{"exec":["x"],"crashesPerEvent":0.5}}}"#,
                "plugins.p.crashesPerEvent: must be an integer from 1 to 100"
            ),
            (
                #"{"plugins":{"p":{"exec":["x"],"crashesPerEvent":0}}}"#,
                "plugins.p.crashesPerEvent: must be an integer from 1 to 100"
            ),
            (
                #"{"plugins":{"p":{"exec":["x"],"crashesPerEvent":""}}}"#,
                "plugins.p.crashesPerEvent: must be an integer from 1 to 100"
            ),
            (
                #"{"plugins":{"p":{"exec":[]}}}"#,
                "plugins.p.exec: must be a non-empty array of strings (program, args…)"
            ),
            (#"{"plugins":{"p":{"exec":["x"],"colour":1}}}"#, "plugins.p.colour: unknown key"),
            (
                #"{"plugins":{"p":{"exec":["x"],"startTimeout":1e300}}}"#,
                "plugins.p.startTimeout: must be a number of seconds from 0.001 to 86400"
            ),
            (
                #"{"plugins":{"p":{"exec":["x"],"updateTimeout":0}}}"#,
                "plugins.p.updateTimeout: must be a number of seconds from 0.001 to 86400"
            ),
            (
                #"{"plugins":{"p":{"exec":["x"],"updateTimeout":"5s"}}}"#,
                "plugins.p.updateTimeout: must be a number of seconds from 0.001 to 86400"
            ),
            (
                #"{"plugins":{"p":{"exec":["x"],"maxQueued":-1}}}"#,
                "plugins.p.maxQueued: must be an integer from 1 to 1000000"
            ),
            (
                #"{"plugins":{"p":{"exec":["x"],"maxLineBytes":0.5}}}"#,
                "plugins.p.maxLineBytes: must be an integer from 1024 to 1073741824"
            ),
            (
                #"{"plugins":{"p":{"exec":["x"],"env":{"MOBIUSD_APP":"x"}}}}"#,
                "plugins.p.env.MOBIUSD_APP: MOBIUSD_ variables are set by the daemon itself"
            ),
            (#"{"dbus":[{"bus":"session"}]}"#, "dbus[0].type: is required: the event type to produce"),
            (
                #"{"dbus":[{"bus":"session","type":"t","match":{"membr":"x"}}]}"#,
                "dbus[0].match.membr: unknown match key (use sender, path, path_namespace, interface, member, arg0…arg63)"
            ),
            (#"{"app":"../etc"}"#, "app: must be 1-64 characters of letters, digits, '-', '_' or '.'"),
            ("[]", "(top level): must be a JSON object"),
        ])
    func problems(_ text: String, _ expected: String) {
        #expect(problem(text) == expected)
    }

    @Test("command-line flags: both spellings, values, and errors naming the flag")
    func options() throws {
        let options = try DaemonOptions(arguments: ["--config", "a.json", "--socket=/tmp/s", "--ephemeral", "--check"])
        #expect(options.configFile == "a.json")
        #expect(options.socketPath == "/tmp/s")
        #expect(options.ephemeral && options.check)
        #expect(throws: ConfigError.self) { try DaemonOptions(arguments: ["--socket"]) }
        #expect(throws: ConfigError.self) { try DaemonOptions(arguments: ["--log-level", "loud"]) }
        #expect(throws: ConfigError.self) { try DaemonOptions(arguments: ["--frobnicate"]) }
        #expect(throws: ConfigError.self) { try DaemonOptions(arguments: ["--check=yes"]) }
    }
}
