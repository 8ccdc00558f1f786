import MobiusJSON
import MobiusSystem
import Testing

@testable import mobiusctl

/// mobiusctl's hand-written argument parser, called directly (the executable module is `@testable`).
@Suite struct MobiusctlParserTests {
    /// Parses as user 1000 on a host where exactly `sockets` are sockets.
    private func parse(
        _ arguments: [String], environment: [String: String] = [:], sockets: Set<String> = []
    ) throws -> Invocation {
        try Invocation.parse(arguments, environment: environment, userID: 1000, isSocket: sockets.contains)
    }

    private func usageError(_ arguments: [String]) -> UsageError? {
        do throws(UsageError) {
            _ = try Invocation.parse(arguments, environment: [:], userID: 1000, isSocket: { _ in false })
            return nil
        } catch {
            return error
        }
    }

    @Test(arguments: [
        ["--socket", "/s", "ping"], ["ping", "--socket", "/s"], ["--socket=/s", "ping"], ["ping", "--socket=/s"],
    ])
    func socketBeforeOrAfterTheCommand(arguments: [String]) throws {
        let invocation = try parse(arguments, environment: ["MOBIUSD_SOCKET": "/env.sock"])
        #expect(invocation.socket == SocketChoice(path: "/s", origin: .flag))
        #expect(invocation.action == .run(.ping))
    }

    @Test func socketFallsBackToEnvironmentThenRuntimeDirThenTmp() throws {
        let both = ["MOBIUSD_SOCKET": "/env.sock", "XDG_RUNTIME_DIR": "/run/user/7"]
        #expect(try parse(["status"], environment: both).socketPath == "/env.sock")
        #expect(
            try parse(["status"], environment: ["XDG_RUNTIME_DIR": "/run/user/7"]).socketPath
                == "/run/user/7/mobiusd/counter.sock")
        #expect(try parse(["status"]).socketPath == "/tmp/mobiusd-1000/counter.sock")
        let empty = ["MOBIUSD_SOCKET": "", "XDG_RUNTIME_DIR": ""]
        #expect(try parse(["status"], environment: empty).socketPath == "/tmp/mobiusd-1000/counter.sock")
        // Each origin is recorded, for the hint when nobody answers.
        #expect(try parse(["status"], environment: both).socket.origin == .environment)
        #expect(try parse(["status"], environment: ["XDG_RUNTIME_DIR": "/r"]).socket.origin == .runtimeDirectory)
        #expect(try parse(["status"], environment: empty).socket.origin == .fallback)
        #expect(
            try parse(["status", "--app", "garage"]).socket.origin
                == .app("garage", searched: ["/tmp/mobiusd-1000/garage.sock", "/run/mobiusd/garage.sock"]))
    }

    @Test func appOptionLooksWhereTheDaemonAndItsUnitsPutTheSocket() throws {
        let xdg = ["XDG_RUNTIME_DIR": "/run/user/7"]
        let (runtime, fallback, system) =
            ("/run/user/7/mobiusd/garage.sock", "/tmp/mobiusd-1000/garage.sock", "/run/mobiusd/garage.sock")
        // Where none is a socket: the daemon's own default in this environment.
        #expect(try parse(["--app", "garage", "status"], environment: xdg).socketPath == runtime)
        #expect(try parse(["status", "--app=garage"]).socketPath == fallback)
        // Else the first that is: the daemon's default with XDG_RUNTIME_DIR, without it (a daemon started where it
        // was unset: sudo, a container), then the system units'.
        #expect(
            try parse(["--app", "garage", "ping"], environment: xdg, sockets: [fallback, system]).socketPath == fallback
        )
        #expect(try parse(["--app", "garage", "ping"], environment: xdg, sockets: [system]).socketPath == system)
        #expect(try parse(["--app", "garage", "ping"], sockets: [system]).socketPath == system)
        #expect(
            try parse(["--app", "garage", "ping"], environment: xdg, sockets: [runtime, fallback, system]).socketPath
                == runtime)
        // --app is a flag, so it wins over MOBIUSD_SOCKET as --socket does. Without it the default app's path is the
        // daemon's default, whatever sockets the host has.
        #expect(
            try parse(["--app", "garage", "ping"], environment: ["MOBIUSD_SOCKET": "/e.sock"]).socketPath == fallback)
        #expect(
            try parse(["ping"], sockets: ["/run/mobiusd/counter.sock"]).socketPath == "/tmp/mobiusd-1000/counter.sock")
    }

    @Test func appOptionNamesAnAppAndExcludesSocket() {
        #expect(
            usageError(["--app", "garage", "--socket", "/s", "ping"])
                == UsageError("give --app or --socket, not both", command: "ping"))
        #expect(usageError(["ping", "--app="]) == UsageError("--app needs an app name", command: "ping"))
        #expect(
            usageError(["ping", "--app", "../x"])
                == UsageError(
                    "--app \"../x\" is not an app name (1 to 64 letters, digits, -, _ and .)", command: "ping"))
    }

    @Test func theUnitsListenWhereAppLooks() throws {
        let units = "\(DocCatalog.packageDirectory)/systemd"
        let system = try String(contentsOfFile: "\(units)/mobiusd@.socket", encoding: .utf8)
        #expect(system.contains("\nListenStream=\(AppSocketPaths.systemUnit(app: "%i"))\n"), "\(system)")
        let counter = try String(contentsOfFile: "\(units)/mobiusd.socket", encoding: .utf8)
        #expect(counter.contains("\nListenStream=\(AppSocketPaths.systemUnit(app: "counter"))\n"), "\(counter)")
        let user = try String(contentsOfFile: "\(units)/user/mobiusd@.socket", encoding: .utf8)
        let userPath = AppSocketPaths.daemonDefault(app: "%i", runtimeDirectory: "%t", userID: 0)
        #expect(user.contains("\nListenStream=\(userPath)\n"), "\(user)")
    }

    @Test func missingSocketHintSaysWhereItLooked() throws {
        // The integration tests cannot own /tmp/mobiusd-UID (a real daemon of this user may listen there).
        #expect(
            try parse(["status"]).socket.hint
                == "hint: the path is the counter's default when XDG_RUNTIME_DIR is unset; for another app give --app "
                + "NAME, for a daemon that has XDG_RUNTIME_DIR set --socket PATH or MOBIUSD_SOCKET")
        #expect(
            try parse(["status", "--app", "garage"], environment: ["XDG_RUNTIME_DIR": "/r"]).socket.hint
                == "hint: looked for app \"garage\" where mobiusd puts its socket: /r/mobiusd/garage.sock "
                + "(under XDG_RUNTIME_DIR), /tmp/mobiusd-1000/garage.sock (without XDG_RUNTIME_DIR), "
                + "/run/mobiusd/garage.sock (the system units); --socket PATH for another path")
    }

    @Test func outputModeFromFlagsLastOneWins() throws {
        #expect(try parse(["status"]).output == .automatic)
        #expect(try parse(["status", "--json"]).output == .json)
        #expect(try parse(["--human", "status"]).output == .human)
        #expect(try parse(["--human", "status", "--json"]).output == .json)
    }

    @Test func sendParsesTheEventAndSendsItCompactOnOneLine() throws {
        let invocation = try parse(["send", "{\n  \"type\": \"increment\",\n  \"n\": 1.50\n}"])
        guard case .run(let command) = invocation.action else { throw DaemonTestError("not a command") }
        #expect(command == .send(["type": "increment", "n": .number(JSONNumber(literal: "1.50")!)]))
        #expect(command.requestLine == #"send {"type":"increment","n":1.50}"#)
    }

    @Test func negativeNumbersAndDashDashArePositional() throws {
        #expect(try parse(["send", "-1"]).action == .run(.send(-1)))
        #expect(try parse(["send", "--", "-2.5e3"]).action == .run(.send(.number(JSONNumber(literal: "-2.5e3")!))))
        #expect(try parse(["--", "ping"]).action == .run(.ping))
    }

    @Test func requestLines() throws {
        func line(_ arguments: [String]) throws -> String {
            guard case .run(let command) = try parse(arguments).action else { throw DaemonTestError("not a command") }
            return command.requestLine
        }
        #expect(try line(["model"]) == "model")
        #expect(try line(["model", "--path", "/a/0"]) == #"model {"path":"/a/0"}"#)
        #expect(try line(["model", "--path="]) == #"model {"path":""}"#)
        #expect(try line(["watch"]) == "subscribe")
        #expect(try line(["watch", "--path=/x\"y"]) == #"subscribe {"path":"/x\"y"}"#)
        #expect(try line(["log"]) == "log")
        #expect(
            try line(["log", "--follow", "--since", "5", "--limit=2"]) == #"log {"since":5,"follow":true,"limit":2}"#)
        #expect(try line(["status"]) == "status")
        #expect(try line(["monitor"]) == "monitor")
        #expect(try line(["hello"]) == "hello")
        #expect(try line(["ping"]) == "ping")
        #expect(try line(["reload"]) == "reload")
        #expect(try line(["plugin", "restart", "fx"]) == #"plugin {"restart":"fx"}"#)
        #expect(try line(["plugin", "restart", "--", "-odd\"name"]) == #"plugin {"restart":"-odd\"name"}"#)
        #expect(try line(["metrics"]) == "metrics")
        #expect(
            try line(["metrics", "--format=prometheus", "--output", "m.prom"]) == #"metrics {"format":"prometheus"}"#)
        #expect(try line(["top"]) == "metrics")
        #expect(try parse(["metrics", "--output", "m.prom"]).action == .run(.metrics(format: nil, output: "m.prom")))
    }

    @Test(arguments: [
        (["reload", "now"], "reload takes no argument \"now\""),
        (["plugin"], "plugin needs an action: plugin restart NAME"),
        (["plugin", "restart"], "plugin restart needs a plugin name"),
        (["plugin", "restart", "a", "b"], "plugin restart takes one plugin name"),
        (["plugin", "stop", "fx"], "unknown plugin action \"stop\" (plugin restart NAME)"),
        (["reload", "--path", "/a"], "reload does not take --path"),
        (["metrics", "--format", "json"], "--format takes openmetrics or prometheus, not \"json\""),
        (["metrics", "--output="], "--output needs a file name"),
        (["metrics", "--format"], "--format needs a value"),
        (["top", "--format", "prometheus"], "top does not take --format"),
        (["top", "now"], "top takes no argument \"now\""),
        (["status", "--output", "x"], "status does not take --output"),
    ])
    func controlCommandUsageErrors(arguments: [String], message: String) {
        #expect(usageError(arguments)?.message == message, "\(arguments)")
    }

    @Test func helpAndVersion() throws {
        #expect(try parse(["--help"]).action == .help(nil))
        #expect(try parse(["-h"]).action == .help(nil))
        #expect(try parse(["send", "--help"]).action == .help("send"))
        #expect(try parse(["--help", "watch"]).action == .help("watch"))
        #expect(try parse(["help", "log"]).action == .help("log"))
        #expect(try parse(["help"]).action == .help(nil))
        #expect(try parse(["--version"]).action == .version)
        // --help wins over problems elsewhere on the line, so it always shows how to fix them.
        #expect(try parse(["send", "{bad", "--bogus", "--help"]).action == .help("send"))
    }

    @Test(
        arguments: [
            ([], "no command given", nil),
            (["bogus"], "unknown command \"bogus\"", nil),
            (["send"], "send needs a JSON event", "send"),
            (["send", "{\"a\":1", "x"], "send takes one JSON event (quote it)", "send"),
            (["status", "extra"], "status takes no argument \"extra\"", "status"),
            (["model", "--since", "1"], "model does not take --since", "model"),
            (["model", "--path"], "--path needs a value", "model"),
            (["model", "--path", "--json"], "--path needs a value", "model"),
            (["log", "--since", "x"], "--since needs a whole number ≥ 0, not \"x\"", "log"),
            (["log", "--limit", "-1"], "--limit needs a whole number ≥ 0, not \"-1\"", "log"),
            (["log", "--follow=yes"], "--follow takes no value", "log"),
            (["watch", "--path", "/a", "--path", "/b"], "--path given twice", "watch"),
            (["--json=1", "ping"], "--json takes no value", nil),
            (["ping", "--bogus"], "unknown option --bogus", "ping"),
            (["ping", "-x"], "unknown option -x", "ping"),
            (["--socket=", "ping"], "--socket needs a path", nil),
            (["help", "bogus"], "unknown command \"bogus\"", nil),
        ] as [([String], String, String?)])
    func usageErrors(arguments: [String], message: String, command: String?) {
        #expect(usageError(arguments) == UsageError(message, command: command))
    }

    @Test func invalidJSONAndPointerAreUsageErrors() {
        let json = usageError(["send", "{\"type\":}"])
        #expect(json?.message.hasPrefix("send: invalid JSON: unexpected character '}'") == true)
        let pointer = usageError(["watch", "--path", "a/b"])
        #expect(
            pointer?.message == "--path \"a/b\" is not a JSON Pointer: a JSON Pointer must be empty or start with '/'")
    }
}
