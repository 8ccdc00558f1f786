import Foundation
import Glibc
import MobiusJSON
import Testing

/// docs/protocol.md section 6: the command line and the config file, through the real binary.
@Suite(.serialized, .timeLimit(.scaled(minutes: 3)))
struct DaemonConfigCLITests {
    static let goodConfig = """
        {
          "app": "counter",
          "model": 0,
          "update": { "builtin": "counter" },
          "socket": { "path": "run/counter.sock", "mode": "0660", "maxLineBytes": 4096, "maxOutputBytes": 65536,
                      "maxConnections": 16, "maxConnectionsPerUser": 8, "stallTimeout": 5 },
          "access": { "read": ["*"], "write": ["root"] },
          "state": { "fsync": "always" }
        }
        """

    @Test func checkAcceptsAGoodConfigAndExitsZero() throws {
        let scratch = DaemonScratch()
        let config = scratch.write("good.json", Self.goodConfig)
        let run = try DaemonToolRun.mobiusd(["--check", "--config", config])
        #expect(run.exit == .exited(0), "\(run.exit): \(run.stderr)")
        // Relative socket path in the file: against the file's directory. --check does not bind.
        #expect(run.stdout.contains(scratch.file("run/counter.sock")), "\(run.stdout)")
        #expect(!FileManager.default.fileExists(atPath: scratch.file("run/counter.sock")))
    }

    @Test(arguments: [
        (#"{"update":{"builtin":"counter"},"socket":{"bogus":1}}"#, "socket.bogus"),
        (#"{"update":{"builtin":"counter"},"bogus":true}"#, "bogus"),
        (#"{"update":{"builtin":"counter"},"access":{"read":["*"],"wirte":[]}}"#, "access.wirte"),
        (#"{"update":{"builtin":"counter"},"state":{"fsync":"always","dir":"x"}}"#, "state.dir"),
        (#"{"update":{"builtin":"counter","extra":1}}"#, "update.extra"),
    ])
    func unknownKeysFailNamingTheKey(config: String, key: String) throws {
        let scratch = DaemonScratch()
        let path = scratch.write("bad.json", config)
        let run = try DaemonToolRun.mobiusd(["--check", "--config", path])
        #expect(run.exit == .exited(1), "\(config): \(run.exit)")
        #expect(run.stderr.contains(key), "\(config): stderr must name \(key): \(run.stderr)")
        // Running (not just --check) refuses the same config.
        let serve = try DaemonToolRun.mobiusd(["--config", path, "--socket", scratch.file("x.sock")])
        #expect(serve.exit == .exited(1), "\(config): \(serve.exit)")
        #expect(serve.stderr.contains(key), "\(serve.stderr)")
    }

    @Test(arguments: [
        (#"{"update":{"builtin":"counter"},"socket":{"mode":"rw-rw----"}}"#, "socket.mode"),
        (#"{"update":{"builtin":"counter"},"socket":{"maxLineBytes":"big"}}"#, "socket.maxLineBytes"),
        (#"{"update":{"builtin":"counter"},"socket":{"maxConnections":0}}"#, "socket.maxConnections"),
        (#"{"update":{"builtin":"counter"},"state":{"fsync":"sometimes"}}"#, "state.fsync"),
        (#"{"update":{"builtin":"counter"},"access":{"write":["no-such-user-xyz"]}}"#, "access.write"),
        (#"{"update":{"builtin":"counter"},"app":"../etc"}"#, "app"),
        (#"{"update":{"builtin":"nope"}}"#, "update.builtin"),
    ])
    func badValuesFailNamingTheKey(config: String, key: String) throws {
        let scratch = DaemonScratch()
        let run = try DaemonToolRun.mobiusd(["--check", "--config", scratch.write("bad.json", config)])
        #expect(run.exit == .exited(1), "\(config): \(run.exit); stdout \(run.stdout)")
        #expect(run.stderr.contains(key), "\(config): stderr must name \(key): \(run.stderr)")
    }

    @Test func unknownBuiltinUpdateNamesTheKeyAndTheChoices() throws {
        let scratch = DaemonScratch()
        let path = scratch.write("bad.json", #"{"update":{"builtin":"nope"}}"#)
        let run = try DaemonToolRun.mobiusd(["--check", "--config", path])
        #expect(run.exit == .exited(1))
        #expect(run.stderr.contains("update.builtin") && run.stderr.contains("nope"), "\(run.stderr)")
        #expect(run.stderr.contains("counter"), "the message should list the built-in apps: \(run.stderr)")
    }

    @Test func invalidJSONConfigFailsNamingTheFile() throws {
        let scratch = DaemonScratch()
        let path = scratch.write("broken.json", #"{"update": "#)
        let run = try DaemonToolRun.mobiusd(["--check", "--config", path])
        #expect(run.exit == .exited(1))
        #expect(run.stderr.contains(path), "\(run.stderr)")
        let missing = try DaemonToolRun.mobiusd(["--check", "--config", scratch.file("absent.json")])
        #expect(missing.exit == .exited(1))
        #expect(missing.stderr.contains("absent.json"), "\(missing.stderr)")
    }

    @Test func syntaxErrorGivesLineColumnAndACaretUnderTheLine() throws {
        let scratch = DaemonScratch()
        let path = scratch.write(
            "typo.json", "{\n  \"update\": {\"builtin\": \"counter\"},\n  \"socket\": {\"mode\": \"0660\",}\n}\n")
        let run = try DaemonToolRun.mobiusd(["--check", "--config", path])
        #expect(run.exit == .exited(1))
        #expect(
            run.stderr == """
                mobiusd: \(path): line 3, column 29: not valid JSON: trailing comma before '}'
                    "socket": {"mode": "0660",}
                                              ^

                """)
    }

    @Test(arguments: [
        (#"{"update":{"builtin":"stroe"}}"#, #"update.builtin: no built-in app "stroe" (did you mean "store"?)"#),
        (#"{"update":{"builtin":"counter"},"socket":{"pth":"a"}}"#, #"socket.pth: unknown key (did you mean "path"?)"#),
        (
            #"{"update":{"builtin":"counter"},"socket":{"mode":660}}"#,
            #"socket.mode: must be an octal string like "0660""#
        ),
        (#"{"app":"x"}"#, #"update: is required: {"builtin":"counter"}, {"builtin":"store"} or {"plugin":"NAME"}"#),
        (#"{"update":{"builtin":"counter"},"access":{"write":["no-such-user-xyz"]}}"#, "access.write[0]: no such"),
        (
            #"{"update":{"builtin":"counter"},"access":{"write":["roott"]}}"#,
            #"access.write[0]: no such user "roott" (did you mean "root"?)"#
        ),
        (
            #"{"update":{"builtin":"counter"},"access":{"read":["@roott"]}}"#,
            #"access.read[0]: no such group "@roott" (did you mean "@root"?)"#
        ),
    ])
    func everyConfigErrorNamesTheFileAndSaysWhatToWrite(config: String, message: String) throws {
        let scratch = DaemonScratch()
        let path = scratch.write("bad.json", config)
        let run = try DaemonToolRun.mobiusd(["--check", "--config", path])
        #expect(run.exit == .exited(1), "\(config): \(run.exit)")
        #expect(run.stderr.hasPrefix("mobiusd: \(path): \(message)"), "\(config): \(run.stderr)")
    }

    @Test func anOverlongSocketFromTheFlagIsNotBlamedOnTheFile() throws {
        let scratch = DaemonScratch()
        let path = scratch.write("good.json", #"{"update":{"builtin":"counter"}}"#)
        let long = "/tmp/" + String(repeating: "x", count: 120)
        let run = try DaemonToolRun.mobiusd(["--check", "--config", path, "--socket", long])
        #expect(run.exit == .exited(1))
        #expect(run.stderr.hasPrefix("mobiusd: socket.path: is longer than"), "\(run.stderr)")
        let inFile = scratch.write("long.json", #"{"update":{"builtin":"counter"},"socket":{"path":"\#(long)"}}"#)
        let fromFile = try DaemonToolRun.mobiusd(["--check", "--config", inFile])
        #expect(fromFile.stderr.hasPrefix("mobiusd: \(inFile): socket.path: is longer than"), "\(fromFile.stderr)")
    }

    @Test func missingPluginExecutableFailsCheckNamingTheKey() throws {
        let scratch = DaemonScratch()
        let path = scratch.write(
            "plugins.json",
            #"{"update":{"builtin":"counter"},"plugins":{"sound":{"exec":["./plugins/beep.py","--quiet"]}}}"#)
        let run = try DaemonToolRun.mobiusd(["--check", "--config", path])
        #expect(run.exit == .exited(1), "\(run.exit)")
        #expect(run.stderr.contains("plugins.sound.exec"), "\(run.stderr)")
        // The relative exec path is reported resolved against the config file's directory.
        #expect(run.stderr.contains(scratch.path) && run.stderr.contains("plugins/beep.py"), "\(run.stderr)")
    }

    @Test func presentPluginExecutablePassesCheck() throws {
        let scratch = DaemonScratch()
        // --check runs the handshake, so the plugin must be a real one: the shell fixture, copied next to the config.
        let fixture = (try? String(contentsOfFile: PluginFixtures.tick, encoding: .utf8)) ?? ""
        let script = scratch.write("beep.sh", fixture)
        chmod(script, 0o755)
        let path = scratch.write(
            "plugins.json", #"{"update":{"builtin":"counter"},"plugins":{"sound":{"exec":["./beep.sh"]}}}"#)
        let run = try DaemonToolRun.mobiusd(["--check", "--config", path])
        #expect(run.exit == .exited(0), "\(run.exit): \(run.stderr)")
        let onPath = scratch.write(
            "path.json", #"{"update":{"builtin":"counter"},"plugins":{"sound":{"exec":["no-such-program-xyz"]}}}"#)
        let missing = try DaemonToolRun.mobiusd(["--check", "--config", onPath])
        #expect(missing.exit == .exited(1))
        #expect(missing.stderr.contains("plugins.sound.exec"), "\(missing.stderr)")
    }

    @Test func relativeSocketPathResolvesAgainstTheConfigFilesDirectory() throws {
        let scratch = DaemonScratch()
        let configDirectory = scratch.file("etc")
        mkdir(configDirectory, 0o755)
        let config = scratch.write(
            "etc/app.json", #"{"update":{"builtin":"counter"},"socket":{"path":"counter.sock"}}"#)
        let expected = scratch.file("etc/counter.sock")
        // Started from another working directory, with a relative --config path too.
        let daemon = try DaemonProcess(
            scratch: scratch, arguments: ["--config", "etc/app.json"], socketPath: expected,
            workingDirectory: scratch.path)
        #expect(FileManager.default.fileExists(atPath: config))
        #expect(try daemon.connect().request("ping").ok == true)
        #expect(daemon.standardOutput.contains("listening on \(expected)"), "banner: \(daemon.standardOutput)")
        #expect(!FileManager.default.fileExists(atPath: scratch.file("counter.sock")))
    }

    @Test func socketFlagOverridesTheConfigFile() throws {
        let scratch = DaemonScratch()
        let config = scratch.write(
            "app.json", #"{"update":{"builtin":"counter"},"socket":{"path":"from-config.sock"}}"#)
        let flagged = scratch.file("from-flag.sock")
        let daemon = try DaemonProcess(
            scratch: scratch, arguments: ["--config", config, "--socket", flagged], socketPath: flagged)
        #expect(try daemon.connect().request("ping").ok == true)
        #expect(!FileManager.default.fileExists(atPath: scratch.file("from-config.sock")))
        #expect(daemon.standardOutput.contains(flagged), "banner: \(daemon.standardOutput)")
        // `--flag=value` works as well.
        let second = scratch.file("equals.sock")
        let other = try DaemonProcess(
            scratch: scratch, arguments: ["--config=\(config)", "--socket=\(second)"], socketPath: second,
            name: "second")
        #expect(try other.connect().request("ping").ok == true)
    }

    @Test func bannerPrintsTheSocketPath() throws {
        let daemon = try DaemonProcess.start()
        try DaemonTraffic.eventually("the banner names the socket") {
            daemon.standardOutput.contains(daemon.socketPath)
        }
        #expect(daemon.standardOutput.hasPrefix("mobiusd "), "\(daemon.standardOutput)")
    }

    @Test func helpPrintsUsageAndExitsZero() throws {
        let run = try DaemonToolRun.mobiusd(["--help"])
        #expect(run.exit == .exited(0))
        #expect(run.stdout.contains("Usage: mobiusd"), "\(run.stdout)")
        for flag in ["--config", "--socket", "--state-dir", "--ephemeral", "--log-level", "--check", "--version"] {
            #expect(run.stdout.contains(flag), "--help must mention \(flag)")
        }
        #expect(try DaemonToolRun.mobiusd(["-h"]).exit == .exited(0))
    }

    @Test func versionMatchesWhatHelloReports() throws {
        let run = try DaemonToolRun.mobiusd(["--version"])
        #expect(run.exit == .exited(0))
        let daemon = try DaemonProcess.start()
        let version = try daemon.connect().request("hello")["version"]?.stringValue ?? "?"
        #expect(run.stdout.trimmingCharacters(in: .whitespacesAndNewlines) == "mobiusd \(version)", "\(run.stdout)")
    }

    @Test func invalidLogLevelIsRefused() throws {
        let run = try DaemonToolRun.mobiusd(["--log-level", "loud", "--socket", "/tmp/unused-mobiusd-it.sock"])
        #expect(run.exit != .exited(0), "\(run.exit)")
        #expect(run.stderr.contains("--log-level"), "\(run.stderr)")
        #expect(!FileManager.default.fileExists(atPath: "/tmp/unused-mobiusd-it.sock"))
        let missingValue = try DaemonToolRun.mobiusd(["--log-level"])
        #expect(missingValue.exit != .exited(0))
        #expect(missingValue.stderr.contains("--log-level"), "\(missingValue.stderr)")
    }

    @Test func validLogLevelDebugRuns() throws {
        let daemon = try DaemonProcess.start(extraArguments: ["--log-level", "debug"])
        #expect(try daemon.connect().request("ping").ok == true)
    }

    @Test func unknownFlagIsRefusedNamingIt() throws {
        let run = try DaemonToolRun.mobiusd(["--frobnicate"])
        #expect(run.exit != .exited(0))
        #expect(run.stderr.contains("--frobnicate"), "\(run.stderr)")
    }
}
