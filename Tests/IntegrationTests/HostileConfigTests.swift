import Foundation
import Testing

/// docs/protocol.md 1.5 and 6: no config value makes the daemon trap; `--check` refuses what start-up could not run,
/// naming the key.
@Suite(.serialized, .timeLimit(.scaled(minutes: 3)))
struct HostileConfigTests {
    /// For each numeric key, a config in which `VALUE` stands for the value under test (plugins get an `exec` that
    /// exists, so only the number can be wrong).
    static let templates: [String: String] = [
        "socket.stallTimeout": #"{"socket":{"stallTimeout":VALUE}}"#,
        "socket.maxLineBytes": #"{"socket":{"maxLineBytes":VALUE}}"#,
        "socket.maxOutputBytes": #"{"socket":{"maxOutputBytes":VALUE}}"#,
        "socket.maxConnections": #"{"socket":{"maxConnections":VALUE}}"#,
        "socket.maxConnectionsPerUser": #"{"socket":{"maxConnectionsPerUser":VALUE}}"#,
        "plugins.p.timeout": #"{"plugins":{"p":{"exec":["/bin/cat"],"timeout":VALUE}}}"#,
        "plugins.p.concurrency": #"{"plugins":{"p":{"exec":["/bin/cat"],"concurrency":VALUE}}}"#,
        "plugins.p.restart.initialDelay": #"{"plugins":{"p":{"exec":["/bin/cat"],"restart":{"initialDelay":VALUE}}}}"#,
        "plugins.p.restart.maxDelay": #"{"plugins":{"p":{"exec":["/bin/cat"],"restart":{"maxDelay":VALUE}}}}"#,
        "plugins.p.restart.interval": #"{"plugins":{"p":{"exec":["/bin/cat"],"restart":{"interval":VALUE}}}}"#,
        "plugins.p.restart.burst": #"{"plugins":{"p":{"exec":["/bin/cat"],"restart":{"burst":VALUE}}}}"#,
        "plugins.p.maxBatch": #"{"plugins":{"p":{"exec":["/bin/cat"],"maxBatch":VALUE}}}"#,
        "plugins.p.user": #"{"plugins":{"p":{"exec":["/bin/cat"],"user":VALUE}}}"#,
        "plugins.p.group": #"{"plugins":{"p":{"exec":["/bin/cat"],"group":VALUE}}}"#,
    ]

    /// The counter app's config with `value` at `key`.
    static func config(_ key: String, _ value: String) -> String {
        let section = templates[key]!.replacingOccurrences(of: "VALUE", with: value)
        return #"{"update":{"builtin":"counter"},"# + section.dropFirst()
    }

    static func check(_ config: String) throws -> DaemonToolRun {
        let scratch = DaemonScratch()
        return try DaemonToolRun.mobiusd(["--check", "--config", scratch.write("mobiusd.json", config)])
    }

    @Test func stallTimeoutOf1e300IsRefusedByCheckAndByStartUp() throws {
        let scratch = DaemonScratch()
        let path = scratch.write("mobiusd.json", Self.config("socket.stallTimeout", "1e300"))
        let check = try DaemonToolRun.mobiusd(["--check", "--config", path])
        #expect(check.exit == .exited(1), "\(check.exit); stdout: \(check.stdout)")
        #expect(check.stderr.contains("socket.stallTimeout"), "\(check.stderr)")
        // Starting with it fails the same way instead of serving and then trapping.
        let start = try DaemonToolRun.run(
            DaemonSpawn.mobiusdPath, ["--config", path, "--socket", scratch.file("x.sock"), "--ephemeral"],
            timeout: .seconds(10))
        #expect(start.exit == .exited(1), "\(start.exit): \(start.stderr)")
        #expect(start.stderr.contains("socket.stallTimeout"), "\(start.stderr)")
    }

    /// Every duration: not positive, or too long to be a duration at all (Swift's `Duration` traps past
    /// 2^63 seconds).
    @Test(arguments: [
        "socket.stallTimeout", "plugins.p.timeout", "plugins.p.restart.initialDelay", "plugins.p.restart.maxDelay",
        "plugins.p.restart.interval",
    ])
    func outOfRangeDurationsAreRefusedNamingTheKey(key: String) throws {
        for value in ["-1", "0", "1e20", "1e300"] {
            let run = try Self.check(Self.config(key, value))
            #expect(run.exit == .exited(1), "\(key) = \(value): \(run.exit); stdout: \(run.stdout)")
            #expect(run.stderr.contains(key), "\(key) = \(value): stderr must name the key: \(run.stderr)")
        }
    }

    /// Every count and size: negative, zero, and more than any daemon could use.
    @Test(arguments: [
        "socket.maxLineBytes", "socket.maxOutputBytes", "socket.maxConnections", "socket.maxConnectionsPerUser",
        "plugins.p.concurrency", "plugins.p.restart.burst", "plugins.p.maxBatch",
    ])
    func outOfRangeCountsAreRefusedNamingTheKey(key: String) throws {
        for value in ["-1", "0", "0.5", "9223372036854775807", "1e300"] {
            let run = try Self.check(Self.config(key, value))
            #expect(run.exit == .exited(1), "\(key) = \(value): \(run.exit); stdout: \(run.stdout)")
            #expect(run.stderr.contains(key), "\(key) = \(value): stderr must name the key: \(run.stderr)")
        }
    }

    /// A plugin `user` or `group` that names nobody, empty included, or that is not a string, is refused naming the
    /// key, by `--check` and by start-up alike.
    @Test(arguments: ["plugins.p.user", "plugins.p.group"])
    func pluginAccountsThatNameNobodyAreRefused(key: String) throws {
        for value in [#""""#, #""no-such-account-here""#, "1e300", "-1"] {
            let scratch = DaemonScratch()
            let path = scratch.write("mobiusd.json", Self.config(key, value))
            let check = try DaemonToolRun.mobiusd(["--check", "--config", path])
            #expect(check.exit == .exited(1), "\(key) = \(value): \(check.exit); stdout: \(check.stdout)")
            #expect(check.stderr.contains(key), "\(key) = \(value): \(check.stderr)")
            let start = try DaemonToolRun.run(
                DaemonSpawn.mobiusdPath, ["--config", path, "--socket", scratch.file("x.sock"), "--ephemeral"],
                timeout: .seconds(10))
            #expect(start.exit == .exited(1), "\(key) = \(value): \(start.exit): \(start.stderr)")
            #expect(start.stderr.contains(key), "\(key) = \(value): \(start.stderr)")
        }
    }
}
